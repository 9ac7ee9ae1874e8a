"""The OAuth 2.0 device flow (RFC 8628) as the `ltm` client runs it (protocol README, section 6)."""

from __future__ import annotations

import socket
import sys
import time
import urllib.parse
import webbrowser

from .client import Hub, Response
from .errors import HubRequestError

CLIENT_ID = "ltm-cli"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
DEFAULT_INTERVAL = 5
DEFAULT_EXPIRES_IN = 300
SLOW_DOWN_STEP = 5


def format_user_code(code: str) -> str:
    """An 8-character code as XXXX-XXXX, upper-cased; other lengths only upper-cased."""
    plain = "".join(ch for ch in str(code) if ch.isalnum()).upper()
    return f"{plain[:4]}-{plain[4:]}" if len(plain) == 8 else str(code).upper()


def open_browser(url: str) -> bool:
    """Try to open a browser; a machine without one (SSH, CI) is normal, never an error."""
    try:
        return bool(webbrowser.open(url))
    except Exception:  # any backend failure just means: no browser here
        return False


class Countdown:
    """The time left, as one line redrawn in place on a terminal, or as a line a minute elsewhere."""

    def __init__(self, stream, deadline: float, clock):
        self.stream, self.deadline, self.clock = stream, deadline, clock
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.last_minute = None

    def remaining(self) -> float:
        return max(0.0, self.deadline - self.clock())

    def show(self) -> None:
        left = int(self.remaining())
        text = f"waiting for approval, code expires in {left // 60}:{left % 60:02d}"
        if self.live:
            self.stream.write(f"\r{text} (Ctrl-C to cancel) ")
            self.stream.flush()
        elif left // 60 != self.last_minute:
            self.last_minute = left // 60
            self.stream.write(text + "\n")

    def clear(self) -> None:
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()


def machine_name() -> str:
    """This machine's name, as the hub's approval page and device list show it."""
    try:
        return socket.gethostname()
    except OSError:
        return ""


def device_flow(hub: Hub, *, stream=None, sleep=None, clock=None, browser=None) -> str:
    """Run the whole flow and return the access token; HubRequestError on denial, expiry or failure.
    Interrupted (Ctrl-C) while waiting, it tells the hub to cancel the code before giving up."""
    # Looked up at call time, so tests can swap the clock and the browser.
    stream, sleep, clock = stream or sys.stderr, sleep or time.sleep, clock or time.monotonic
    browser = browser or open_browser
    grant = authorize_device(hub, device_name=machine_name())
    interval = _positive(grant.get("interval"), DEFAULT_INTERVAL)
    deadline = clock() + _positive(grant.get("expires_in"), DEFAULT_EXPIRES_IN)
    complete_uri = grant.get("verification_uri_complete")

    code = format_user_code(grant.get("user_code", ""))
    stream.write(f"\nYour code: {code}\n")
    if complete_uri:  # the page comes with the code filled in: the person compares the two
        stream.write(f"Open {complete_uri} and check that it shows the same code.\n")
    else:  # the plain page asks for the code
        stream.write(f"Open {grant.get('verification_uri')} and enter the code {code}.\n")
    if complete_uri and browser(complete_uri):
        stream.write("(opened it in your browser)\n")
    stream.write("\n")
    stream.flush()

    countdown = Countdown(stream, deadline, clock)
    try:
        while True:
            _wait(interval, countdown, sleep)
            if countdown.remaining() <= 0:
                raise HubRequestError(f"the code expired before it was approved; run `ltm auth {hub.host}` again")
            answer = poll_token(hub, grant["device_code"])
            if answer.get("access_token"):
                return str(answer["access_token"])
            error = answer.get("error")
            if error == "authorization_pending":
                continue
            if error == "slow_down":
                interval += SLOW_DOWN_STEP
                continue
            raise HubRequestError(_failure(error, answer, hub.host))
    except KeyboardInterrupt:
        countdown.clear()
        if cancel_device(hub, grant["device_code"]):
            stream.write("the hub cancelled the code: it can no longer be approved\n")
        raise
    finally:
        countdown.clear()


def _wait(seconds: float, countdown: Countdown, sleep) -> None:
    """Sleep in one-second steps so the countdown stays live."""
    left = seconds
    while left > 0 and countdown.remaining() > 0:
        countdown.show()
        step = min(1.0, left)
        sleep(step)
        left -= step


def _failure(error, answer: dict, host: str) -> str:
    description = answer.get("error_description")
    if error == "access_denied":
        return f"sign-in was denied on the hub; run `ltm auth {host}` to try again"
    if error == "expired_token":
        return f"the code expired before it was approved; run `ltm auth {host}` again"
    return f"sign-in failed: {description or error or 'no token in the answer'}"


def _positive(value, default: float) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else default


# --- the wire calls of the flow (form-encoded, to /oauth, never with a bearer) ---------------------


def authorize_device(hub: Hub, device_name: str | None = None) -> dict:
    """Start a sign-in. `device_name` (this machine's name) is an extra form field that this
    hub shows on its approval page; the Go client sends none, and hubs that do not know it
    ignore it."""
    fields = {"client_id": CLIENT_ID, "scope": "read write"}
    if device_name:
        fields["device_name"] = device_name
    response = _form(hub, "/oauth/authorize_device", fields)
    data = response.json()
    if response.status != 200 or not isinstance(data, dict) or "device_code" not in data:
        detail = _oauth_detail(data) or f"HTTP {response.status}"
        raise HubRequestError(
            f"{hub.host} did not start a device sign-in ({detail}); if the hub has no device "
            f"flow, create a token in its dashboard and run `ltm auth {hub.host} <token>`",
            response.status,
        )
    return data


def poll_token(hub: Hub, device_code: str) -> dict:
    """One poll of the token endpoint: the JSON body whatever the status."""
    response = _form(
        hub, "/oauth/token", {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": CLIENT_ID}
    )
    data = response.json()
    if not isinstance(data, dict):
        raise HubRequestError(f"unexpected answer from {hub.host}/oauth/token (HTTP {response.status})")
    return data


def cancel_device(hub: Hub, device_code: str, timeout: float = 5) -> bool:
    """Tell the hub this code is abandoned (this hub's `POST /oauth/device/cancel`), so nobody
    can approve it any more. Best effort: False when the hub did not confirm."""
    try:
        response = _form(
            hub, "/oauth/device/cancel", {"device_code": device_code, "client_id": CLIENT_ID}, timeout=timeout
        )
    except HubRequestError:
        return False
    return response.status == 200


def _form(hub: Hub, path: str, fields: dict, timeout: float | None = None) -> Response:
    body = urllib.parse.urlencode(fields).encode("ascii")
    return hub.request(
        "POST", path, body=body, content_type="application/x-www-form-urlencoded", auth=False, timeout=timeout
    )


def _oauth_detail(data) -> str:
    if not isinstance(data, dict):
        return ""
    return str(data.get("error_description") or data.get("error") or "")
