"""The hub, called exactly as the public Go `ltm` client calls it.

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

import pytest
from django.test import Client

from ltm.protocol.packet import parse_packet
from oauth import services
from oauth.testing import DEVICE_GRANT, expire, grant_of, let_interval_pass
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db

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
        from urllib.parse import urlencode

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


@pytest.fixture
def go(api_as, alice):
    """The Go client of alice, signed in with a personal token."""
    return GoClient(api_as(alice).token)


@pytest.fixture
def pushed(go):
    packet = packet_v02()
    assert go_success(go.do("POST", "/v1/packets", json.dumps(packet, indent=2).encode()))
    return packet


@pytest.fixture
def core(go):
    assert go_success(go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode()))
    return "core"


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


# --- auth --------------------------------------------------------------------------------------


def test_static_token_auth_health_check(anon_api):
    """mirrors runStaticTokenAuth (cli/auth.go), step 1: GET /v1/healthz, no token, must be 200."""
    response = GoClient().do("GET", "/v1/healthz")
    assert response.status_code == 200


def test_static_token_auth_token_check(go):
    """mirrors runStaticTokenAuth (cli/auth.go), step 2: GET /v1/packets?limit=1 with the pasted
    token must be exactly 200; 401 means rejected (the body is shown to the person)."""
    assert go.do("GET", "/v1/packets?limit=1").status_code == 200
    rejected = go.do("GET", "/v1/packets?limit=1", token="ltm_not-a-real-token")
    assert rejected.status_code == 401
    assert go_error_message(rejected) == "invalid token"


def test_any_call_with_a_revoked_or_unknown_token_is_a_401_error_body(go, pushed):
    """mirrors errFromResponse (cli/root.go) on 401: `server returned 401: <error>`."""
    for method, path in (
        ("GET", "/v1/packets?limit=50"),
        ("GET", f"/v1/packets/{pushed['id']}"),
        ("DELETE", f"/v1/packets/{pushed['id']}"),
        ("GET", "/v1/teams"),
    ):
        response = go.do(method, path, token="ltm_stale")
        assert response.status_code == 401
        assert go_error_message(response) == "invalid token"
    missing = GoClient().do("GET", "/v1/teams")
    assert missing.status_code == 401 and go_error_message(missing) == "missing bearer token"


# --- packets -----------------------------------------------------------------------------------


def test_push(go):
    """mirrors validateAndPushPacket (cli/push.go, shared by push, save and the MCP push/save
    tools): POST /v1/packets, the file's bytes as they are, Content-Type application/json; any
    2xx (it prints the local packet's id, not the answer)."""
    packet = packet_v02()
    raw = json.dumps(packet, indent=2).encode()
    response = go.do("POST", "/v1/packets", raw)
    assert response.status_code == 201
    go_decode(response.json(), {"id": str})
    assert response.json()["id"] == packet["id"]
    again = go.do("POST", "/v1/packets", raw)  # a re-push of one's own packet is fine too
    assert go_success(again)


def test_push_into_a_team(go, core):
    """mirrors validateAndPushPacket with -t: POST /v1/packets?team=<url.QueryEscape(name)>."""
    packet = packet_v02()
    response = go.do("POST", "/v1/packets?team=core", json.dumps(packet).encode())
    assert response.status_code == 201
    listed = go.do("GET", "/v1/packets?limit=50&team=core").json()["packets"]
    assert [p["id"] for p in listed] == [packet["id"]]
    unknown = go.do("POST", "/v1/packets?team=nope", json.dumps(packet_v02()).encode())
    assert unknown.status_code == 404 and go_error_message(unknown) == "team not found"


def test_push_of_an_invalid_packet_is_an_error_body(go):
    """mirrors validateAndPushPacket with --lenient: the hub's 400 reaches the person through
    errFromResponse's `error` field."""
    response = go.do("POST", "/v1/packets", b'{"ltm_version": "9.9"}')
    assert response.status_code == 400
    assert "unsupported ltm_version" in go_error_message(response)


def test_ls(go, pushed):
    """mirrors fetchPacketList (cli/ls.go, also the MCP ls tool and the resume picker
    pickPacketID): GET /v1/packets?limit=50, decoded as {packets: [{id, created_at, goal}]}."""
    response = go.do("GET", "/v1/packets?limit=50")
    assert response.status_code == 200
    rows = response.json()["packets"]
    assert len(rows) == 1
    go_decode(rows[0], {"id": str, "created_at": str, "goal": str})
    go_rfc3339(rows[0]["created_at"])  # humanRelTime parses it
    assert rows[0]["id"] == pushed["id"]


def test_pull_and_show(go, pushed):
    """mirrors the pull and show commands and fetchPacketBody (cli/pull.go, show.go, resume.go):
    GET /v1/packets/<id>, exactly 2xx, the body is the packet and nothing else."""
    response = go.do("GET", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert json.loads(response.content) == pushed
    go_decode(
        json.loads(response.content), {"id": str, "created_at": str, "ltm_version": str, "goal": str, "next_step": str}
    )


def test_pull_of_a_packet_shared_with_the_caller(go, pushed, api_as, bob):
    """mirrors pull, show and resume (fetchPacketBody) of a packet someone shared with the person
    by name (a hub extension the client does not know): the same GET /v1/packets/<id>, exactly
    200, the body the packet as pushed, valid for packet.Parse; fetchPacketList
    (GET /v1/packets?limit=50) stays the person's own packets."""
    bob_go = GoClient(api_as(bob).token)
    assert bob_go.do("GET", f"/v1/packets/{pushed['id']}").status_code == 404
    shared = go.do("POST", f"/v1/packets/{pushed['id']}/shares", json.dumps({"to": "bob"}).encode())
    assert shared.status_code == 201
    response = bob_go.do("GET", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response.content == go.do("GET", f"/v1/packets/{pushed['id']}").content
    assert json.loads(response.content) == pushed
    parse_packet(response.content)
    assert bob_go.do("GET", "/v1/packets?limit=50").json() == {"packets": []}
    withdrawn = go.do("DELETE", f"/v1/shares/{shared.json()['share']['id']}")
    assert withdrawn.status_code == 204
    gone = bob_go.do("GET", f"/v1/packets/{pushed['id']}")
    assert gone.status_code == 404 and go_error_message(gone) == "packet not found"


def test_resume_revalidates_the_served_packet(go, pushed):
    """mirrors resume (cli/resume.go): packet.Parse(body) re-validates what the hub served against
    the schema (additionalProperties false), so the body must be a valid packet, published or not."""
    assert go_success(go.do("POST", f"/v1/packets/{pushed['id']}/publish"))
    response = go.do("GET", f"/v1/packets/{pushed['id']}")
    parse_packet(response.content)  # raises on any server-side field in the body
    go_rfc3339(response["X-LTM-Published-At"])
    assert response["X-LTM-Public-URL"].startswith("http://testserver/")


def test_rm(go, pushed):
    """mirrors rm (cli/rm.go, also the MCP rm tool): DELETE /v1/packets/<id>, no body, any 2xx."""
    response = go.do("DELETE", f"/v1/packets/{pushed['id']}")
    assert response.status_code == 204
    gone = go.do("DELETE", f"/v1/packets/{pushed['id']}")
    assert gone.status_code == 404 and "not found" in go_error_message(gone)


def test_publish(go, pushed):
    """mirrors publish (cli/publish.go): POST .../publish with no body and no Content-Type, any
    2xx, decoded as {id, public_url} (it prints public_url)."""
    response = go.do("POST", f"/v1/packets/{pushed['id']}/publish")
    assert response.status_code in (200, 201)
    body = go_decode(response.json(), {"id": str, "public_url": str})
    assert body["id"] == pushed["id"]
    assert body["public_url"].startswith("http://testserver/")
    assert Client().get(body["public_url"]).status_code == 200


def test_unpublish(go, pushed):
    """mirrors unpublish (cli/publish.go): DELETE .../publish, no body, any 2xx."""
    url = go.do("POST", f"/v1/packets/{pushed['id']}/publish").json()["public_url"]
    response = go.do("DELETE", f"/v1/packets/{pushed['id']}/publish")
    assert response.status_code in (200, 204)
    assert Client().get(url).status_code == 404
    assert go.do("GET", f"/v1/packets/{pushed['id']}").status_code == 200


# --- teams -------------------------------------------------------------------------------------


def test_teams_create(go):
    """mirrors teams create (cli/teams.go): POST /v1/teams, body {"name": ...}, any 2xx."""
    response = go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode())
    assert response.status_code == 201
    go_decode(response.json()["team"], {"id": str, "name": str, "owner_id": str})
    taken = go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode())
    assert taken.status_code == 409 and go_error_message(taken)


def test_teams_ls(go, core, alice):
    """mirrors teams ls (cli/teams.go): GET /v1/teams, decoded into teamRow (all strings)."""
    response = go.do("GET", "/v1/teams")
    assert response.status_code == 200
    (row,) = response.json()["teams"]
    go_decode(row, {"id": str, "name": str, "owner_id": str, "created_at": str})
    assert row["name"] == "core" and row["owner_id"] == str(alice.pk)
    go_rfc3339(row["created_at"])


def test_teams_rm(go, core):
    """mirrors teams rm (cli/teams.go): DELETE /v1/teams/<url.PathEscape(name)>, any 2xx."""
    response = go.do("DELETE", "/v1/teams/core")
    assert response.status_code == 204
    assert go.do("GET", "/v1/teams").json() == {"teams": []}


def test_teams_members(go, core):
    """mirrors teams members (cli/teams.go): GET /v1/teams/<name>/members, decoded into memberRow
    (user_id, display, email, role, joined_at: all strings)."""
    response = go.do("GET", "/v1/teams/core/members")
    assert response.status_code == 200
    (row,) = response.json()["members"]
    go_decode(row, {"user_id": str, "display": str, "email": str, "role": str, "joined_at": str})
    assert row["role"] == "owner"
    go_rfc3339(row["joined_at"])


def test_teams_leave(go, core, api_as, bob):
    """mirrors teams leave (cli/teams.go): POST /v1/teams/<name>/leave, body {}, any 2xx; the
    owner's refusal reaches the person through the `error` field."""
    code = mint_invite(go, core)["code"]
    bob_go = GoClient(api_as(bob).token)
    assert go_success(accept("http://testserver", code, token=bob_go.token))
    response = bob_go.do("POST", "/v1/teams/core/leave", b"{}")
    assert response.status_code == 204
    owner = go.do("POST", "/v1/teams/core/leave", b"{}")
    assert owner.status_code == 400 and go_error_message(owner)


# --- invites -----------------------------------------------------------------------------------


def test_invite(go, core):
    """mirrors invite -t (cli/teams.go newInviteCmd): POST /v1/teams/<name>/invites, body {},
    any 2xx, decoded as {code, url, expires_at}; it prints url and `expires: <expires_at>`."""
    response = go.do("POST", "/v1/teams/core/invites", b"{}")
    assert response.status_code == 201
    body = go_decode(response.json(), {"code": str, "url": str, "expires_at": str})
    go_rfc3339(body["expires_at"])
    host, code = parse_invite(body["url"])
    assert host == "http://testserver" and code == body["code"]


def test_join_on_a_clean_machine(go, core):
    """mirrors redeemInvite (cli/join.go) without a stored token: POST .../accept, body {},
    Content-Type application/json, no Authorization; any 2xx; it stores `token` when present and
    prints team.name."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code)
    assert response.status_code == 201
    body = go_decode(response.json(), {"token": str, "user": {"id": str, "display": str}, "team": {"name": str}})
    assert body["team"]["name"] == "core" and body["token"]
    assert not body["token"].startswith("-")  # it may be pasted as `ltm auth <host> <token>`
    joined = GoClient(body["token"])
    assert joined.do("GET", "/v1/packets?limit=1").status_code == 200
    assert [t["name"] for t in joined.do("GET", "/v1/teams").json()["teams"]] == ["core"]


def test_join_with_a_stale_stored_token(go, core):
    """mirrors redeemInvite with a stored token the hub no longer knows: treated as no token (a
    new user and a token), not a 401."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code, token="ltm_revoked-long-ago")
    assert response.status_code == 201
    assert response.json()["token"]


def test_join_with_a_valid_stored_token(go, core, api_as, bob):
    """mirrors redeemInvite with a stored token: the bearer's user joins, no new token."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    response = accept(host, code, token=api_as(bob).token)
    assert response.status_code == 201
    body = go_decode(response.json(), {"user": {"id": str, "display": str}, "team": {"name": str}})
    assert "token" not in body and body["user"]["id"] == str(bob.pk)


def test_join_of_a_used_invite_is_410(go, core):
    """mirrors redeemInvite's special case: 410 Gone means `invite expired or already consumed`."""
    host, code = parse_invite(mint_invite(go, core)["url"])
    assert go_success(accept(host, code))
    again = accept(host, code)
    assert again.status_code == 410
    assert go_error_message(again) == "invite expired or already consumed"


# --- OAuth device flow --------------------------------------------------------------------------


def start_device_flow():
    response = GoClient().post_form("/oauth/authorize_device", {"client_id": "ltm-cli", "scope": "read write"})
    assert response.status_code == 200
    return response.json()


def poll_token(device_code):
    """pollToken: the JSON body is decoded whatever the status."""
    response = GoClient().post_form(
        "/oauth/token", {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": "ltm-cli"}
    )
    return go_decode(
        json.loads(response.content),
        {
            "access_token": str,
            "token_type": str,
            "scope": str,
            "error": str,
            "error_description": str,
        },
    )


def test_device_authorization():
    """mirrors runDeviceFlow step 1 (cli/auth.go): PostForm /oauth/authorize_device with
    client_id=ltm-cli and scope="read write"; exactly 200; device_code, user_code and
    verification_uri non-empty; expires_in and interval decode as Go ints."""
    body = go_decode(
        start_device_flow(),
        {
            "device_code": str,
            "user_code": str,
            "verification_uri": str,
            "verification_uri_complete": str,
            "expires_in": int,
            "interval": int,
        },
    )
    assert body["device_code"] and body["verification_uri"].startswith("http://testserver/")
    assert len(body["user_code"].strip()) == 8  # formatUserCode shows it as XXXX-XXXX
    assert body["interval"] > 0 and body["expires_in"] > 0
    assert body["verification_uri_complete"].startswith(body["verification_uri"])


def test_device_token_polling_until_approved(alice):
    """mirrors runDeviceFlow's loop and pollToken (cli/auth.go): sleep `interval`, then PostForm
    /oauth/token; `authorization_pending` → again; success → `access_token`, stored as is and
    sent as a Bearer from then on."""
    started = start_device_flow()
    code = started["device_code"]
    let_interval_pass(code)
    assert poll_token(code)["error"] == "authorization_pending"
    grant = grant_of(code)
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=grant.user_code, approve=True)
    let_interval_pass(code)
    answer = poll_token(code)
    assert "error" not in answer and answer["access_token"]
    assert answer["token_type"].lower() == "bearer"
    assert not answer["access_token"].startswith("-")
    assert GoClient(answer["access_token"]).do("GET", "/v1/packets?limit=50").status_code == 200
    created = GoClient(answer["access_token"]).do("POST", "/v1/packets", json.dumps(packet_v02()).encode())
    assert created.status_code == 201  # scope "read write" allows the writes the client makes


def test_device_token_polling_too_fast_is_slow_down():
    """mirrors runDeviceFlow's `slow_down` case: the client adds 5 s to its interval and polls
    on; polling at the new interval is pending again, not another slow_down."""
    code = start_device_flow()["device_code"]
    assert poll_token(code)["error"] == "slow_down"  # no wait at all since the start
    let_interval_pass(code, seconds=grant_of(code).interval)  # the client's interval + 5 s
    assert poll_token(code)["error"] == "authorization_pending"


def test_device_token_polling_denied_and_expired(alice):
    """mirrors runDeviceFlow's `access_denied` and `expired_token` cases."""
    denied = start_device_flow()["device_code"]
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=grant_of(denied).user_code, approve=False)
    let_interval_pass(denied)
    assert poll_token(denied)["error"] == "access_denied"

    late = start_device_flow()["device_code"]
    expire(late)
    assert poll_token(late)["error"] == "expired_token"


def test_device_flow_other_errors_carry_error_description():
    """mirrors runDeviceFlow's default case: `authorization failed: <error> (<error_description>)`."""
    answer = poll_token("no-such-device-code")
    assert answer["error"] == "invalid_grant" and answer["error_description"]


# --- a configured host with a trailing slash ---------------------------------------------------


def test_a_host_with_a_trailing_slash_doubles_the_slash(go, pushed):
    """mirrors client.do (cli/root.go) with `host = "https://hub/"` (set by `ltm config set host`
    or LTM_HOST; only `ltm auth` trims the slash): it sends c.host+path as is, so every path
    starts with "//". Go's own server cleans such paths; the hub must answer them too."""

    def doubled(method, path, body=None):
        # Django's test client would read "//v1" as a host; the WSGI path is set by hand.
        headers = dict(GO_HEADERS, HTTP_AUTHORIZATION="Bearer " + go.token, PATH_INFO="/" + path.split("?")[0])
        if body:
            return go.client.generic(method, path, data=body, content_type="application/json", **headers)
        return go.client.generic(method, path, **headers)

    assert doubled("GET", "/v1/packets?limit=50").json()["packets"][0]["id"] == pushed["id"]
    assert doubled("POST", "/v1/packets", json.dumps(packet_v02()).encode()).status_code == 201
    assert doubled("GET", "/v1/healthz").status_code == 200
    assert doubled("DELETE", f"/v1/packets/{pushed['id']}").status_code == 204
    form = GoClient().client.generic(
        "POST",
        "/oauth/authorize_device",
        data="client_id=ltm-cli&scope=read+write",
        content_type=FORM,
        PATH_INFO="//oauth/authorize_device",
        **GO_HEADERS,
    )
    assert form.status_code == 200
