"""The public Go `ltm` client's HTTP calls, for tests that call the hub exactly as it does.

Each test replays one HTTP call of the Go client (dennisdevulder/ltm, internal/cli): the same
method, path and query, the same headers (Go's net/http sends `User-Agent: Go-http-client/1.1`
and `Accept-Encoding: gzip`, no Accept header; `Content-Type: application/json` only when there
is a body; `Content-Length: 0` on a POST without one) and the same body. Then it checks the answer
the way that client reads it: which statuses count as success (any 2xx, except where noted), and
that every field it decodes has the JSON type of the Go struct field it lands in (a string field
refuses a number, an int field refuses 5.0). The docstring of each test names the Go function it
mirrors.
"""

import json
from datetime import datetime
from urllib.parse import urlencode

from django.test import Client

GO_HEADERS = {"HTTP_USER_AGENT": "Go-http-client/1.1", "HTTP_ACCEPT_ENCODING": "gzip"}
FORM = "application/x-www-form-urlencoded"


class GoClient:
    """The Go client's requests: `client.do` (root.go), `http.PostForm` (auth.go) and the
    hand-made requests of `runStaticTokenAuth` and `redeemInvite`."""

    def __init__(self, token=None):
        self.client = Client()
        self.token = token

    def do(self, method, path, body=None, *, token=None, content_type="application/json"):
        """client.do: Bearer always; Content-Type only with a body."""
        headers = dict(GO_HEADERS)
        token = self.token if token is None else token
        if token:
            headers["HTTP_AUTHORIZATION"] = "Bearer " + token
        if body:  # Django sets CONTENT_TYPE and CONTENT_LENGTH from a non-empty body
            return self.client.generic(method, path, data=body, content_type=content_type, **headers)
        if method == "POST":  # Go's transport says Content-Length: 0 on a POST without a body
            headers["CONTENT_LENGTH"] = "0"
        return self.client.generic(method, path, **headers)

    def post_form(self, path, fields):
        """http.Client.PostForm: url-encoded body, that exact Content-Type, no Authorization."""
        return self.client.generic("POST", path, data=urlencode(fields), content_type=FORM, **GO_HEADERS)


def go_success(response) -> bool:
    """errFromResponse: any 2xx is success."""
    return 200 <= response.status_code < 300


def go_error_message(response) -> str:
    """errFromResponse: the body's `error` string (else the raw body)."""
    data = json.loads(response.content)
    assert isinstance(data.get("error"), str) and data["error"], response.content
    return data["error"]


def go_decode(data, fields: dict):
    """json.Unmarshal into a struct: each named field absent, null or of the Go type."""
    assert isinstance(data, dict), data
    for name, kind in fields.items():
        value = data.get(name)
        if value is None:
            continue
        if kind is int:
            assert isinstance(value, int) and not isinstance(value, bool), (name, value)
        elif isinstance(kind, dict):
            go_decode(value, kind)
        else:
            assert isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)), (name, value)
    return data


def go_rfc3339(text: str) -> datetime:
    """time.Parse(time.RFC3339, ...): a date-time with a zone (fractional seconds allowed)."""
    assert isinstance(text, str) and text[10] == "T" and (text.endswith("Z") or text[-6] in "+-"), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def mint_invite(go, team):
    response = go.do("POST", f"/v1/teams/{team}/invites", b"{}")
    assert go_success(response)
    return response.json()


def parse_invite(url):
    """parseInvite: split at /v1/invites/ into (host, code), nothing else trimmed."""
    marker = "/v1/invites/"
    index = url.index(marker)
    return url[:index], url[index + len(marker) :]


def accept(host, code, token=None):
    """redeemInvite: POST host/v1/invites/<code>/accept, body {}, JSON type, the stored token if any."""
    assert host == "http://testserver"
    return GoClient().do("POST", f"/v1/invites/{code}/accept", b"{}", token=token or "")
