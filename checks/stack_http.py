"""What the stack check (checks/stack_check.py) uses to talk to the hub as people and programs
do: a client with its own cookies, the device flow's requests, and a bounded wait."""

import http.cookiejar
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request

PASSWORD = "stack-check-passphrase-1"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
USER_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"  # the hub's alphabet: wrong codes the hub reads as codes


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


class Http:
    """One person or program: its own cookies (a browser session), redirects not followed."""

    def __init__(self, token=None):
        self.token = token
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )

    def call(self, method, url, *, body=None, form=None, timeout=15):
        """(status, text) of one request; `body` is sent as JSON, `form` form-encoded."""
        headers, data = {}, None
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace")

    def expect(self, status, method, url, **kwargs):
        got, text = self.call(method, url, **kwargs)
        check(got == status, f"{method} {url} answered {got}, not {status}: {text[:300]}")
        return json.loads(text) if text.startswith(("{", "[")) else text

    def sign_in(self, base, username):
        page = self.expect(200, "GET", base + "/accounts/login/")
        self.expect(
            302,
            "POST",
            base + "/accounts/login/",
            form={"csrfmiddlewaretoken": csrf(page), "login": username, "password": PASSWORD},
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def csrf(page):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def new_packet(goal="stack check"):
    from ulid import ULID

    from ltm.protocol.packet import example_packet

    return {**example_packet(), "id": str(ULID()), "goal": goal}


def poll_for_token(base, grant, seconds=60):
    """Poll /oauth/token as the client does: every `interval` seconds, 5 s more on slow_down."""
    interval, deadline = grant["interval"], time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(interval)
        status, text = Http().call(
            "POST",
            base + "/oauth/token",
            form={"grant_type": DEVICE_GRANT, "device_code": grant["device_code"], "client_id": "ltm-cli"},
        )
        answer = json.loads(text)
        if status == 200:
            return answer["access_token"]
        if answer.get("error") == "slow_down":
            interval += 5
        check(answer.get("error") in ("authorization_pending", "slow_down"), f"/oauth/token answered {text}")
    raise Failed("no token before the deadline")


def start_device_flow(base):
    return Http().expect(
        200, "POST", base + "/oauth/authorize_device", form={"client_id": "ltm-cli", "scope": "read write"}
    )


def wait_until(condition, seconds, message):
    deadline = time.monotonic() + seconds
    while not condition():
        check(time.monotonic() < deadline, message)
        time.sleep(0.5)
