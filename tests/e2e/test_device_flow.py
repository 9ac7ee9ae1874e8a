"""`ltm auth` end to end: the hub on a live server, the client's exact HTTP calls (form-encoded,
the same fields, through urllib as a separate program would make them) and a person in Chromium
who signs in or signs up, compares the code and clicks Approve or Deny."""

import json
import urllib.error
import urllib.request
from urllib.parse import urlencode

import pytest

from oauth.device_flow import format_user_code
from oauth.testing import DEVICE_GRANT, ensure_cli_application, expire, let_interval_pass
from packets.testing import packet_v02

pytestmark = pytest.mark.browser

PASSWORD = "correct-horse-battery"


def call(url, fields=None, *, token=None, body=None):
    """(status, JSON) for a form POST (fields), a JSON POST (body) or a GET."""
    headers = {}
    data = None
    if fields is not None:
        data = urlencode(fields).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class Client:
    """The calls of section 6 of the protocol, as the Go client makes them."""

    def __init__(self, base):
        self.base = base

    def start(self):
        status, grant = call(self.base + "/oauth/authorize_device", {"client_id": "ltm-cli", "scope": "read write"})
        assert status == 200, grant
        return grant

    def poll(self, device_code, *, waited=True):
        if waited:
            let_interval_pass(device_code)  # the client sleeps `interval` between polls
        return call(
            self.base + "/oauth/token",
            {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": "ltm-cli"},
        )


@pytest.fixture
def cli(live_server):
    ensure_cli_application()
    return Client(live_server.url)


def sign_in(page, username):
    page.fill("#id_login", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")


def test_sign_in_approve_then_the_token_reads_and_writes(live_server, cli, new_page, make_user, artifacts_dir):
    make_user("alice", password=PASSWORD)
    grant = cli.start()
    assert grant["verification_uri"] == live_server.url + "/device"
    assert cli.poll(grant["device_code"]) == (
        400,
        {"error": "authorization_pending", "error_description": "waiting for the person to approve"},
    )

    page = new_page()
    page.goto(grant["verification_uri_complete"])
    assert "/accounts/login/" in page.url
    page.screenshot(path=str(artifacts_dir / "device-signin.png"), full_page=True)
    sign_in(page, "alice")

    # back on the same step: the confirmation page, with the code the terminal shows
    page.wait_for_selector(".device-code")
    assert page.locator(".device-code").inner_text() == format_user_code(grant["user_code"])
    assert "ltm command-line client" in page.inner_text("main")
    page.screenshot(path=str(artifacts_dir / "device-confirm.png"), full_page=True)

    page.click("button[value=approve]")
    page.wait_for_url("**/device/done/approved")
    assert "You're signed in" in page.inner_text("h1")

    status, answer = cli.poll(grant["device_code"])
    assert status == 200, answer
    token = answer["access_token"]
    assert answer["token_type"] == "Bearer"

    packet = packet_v02()
    assert call(live_server.url + "/v1/packets", body=packet, token=token)[0] == 201
    status, listed = call(live_server.url + "/v1/packets?limit=1", token=token)
    assert status == 200 and listed["packets"][0]["id"] == packet["id"]

    # one device_code, one token
    assert cli.poll(grant["device_code"])[1]["error"] == "invalid_grant"


def test_deny_answers_access_denied(live_server, cli, new_page, make_user):
    make_user("alice", password=PASSWORD)
    grant = cli.start()
    page = new_page()
    page.goto(live_server.url + "/device")
    sign_in(page, "alice")
    page.wait_for_selector("#user_code")
    user_code = grant["user_code"]
    page.fill("#user_code", f"{user_code[:4].lower()} - {user_code[4:].lower()}")  # as typed by hand
    page.click("button[type=submit]")
    page.wait_for_selector(".device-code")
    page.click("button[value=deny]")
    page.wait_for_url("**/device/done/denied")
    assert cli.poll(grant["device_code"]) == (
        400,
        {"error": "access_denied", "error_description": "the sign-in was denied"},
    )


def test_expired_code_answers_expired_token_and_the_page_says_so(live_server, cli, new_page, make_user):
    make_user("alice", password=PASSWORD)
    grant = cli.start()
    expire(grant["device_code"])
    assert cli.poll(grant["device_code"])[1]["error"] == "expired_token"
    page = new_page()
    page.goto(grant["verification_uri_complete"])
    sign_in(page, "alice")
    page.wait_for_selector(".device-problem")
    assert "expired" in page.inner_text(".device-problem")


def test_polling_too_fast_answers_slow_down(cli):
    grant = cli.start()
    status, answer = cli.poll(grant["device_code"], waited=False)
    assert (status, answer["error"]) == (400, "slow_down")
    status, answer = cli.poll(grant["device_code"], waited=False)
    assert answer["error"] == "slow_down"


def test_sign_up_in_the_middle_of_the_flow_lands_on_the_confirmation_page(live_server, cli, new_page, artifacts_dir):
    grant = cli.start()
    page = new_page(width=390, height=844)  # a phone: the person scanned the link
    page.goto(grant["verification_uri_complete"])
    page.click("text=Create an account")
    page.fill("#id_email", "carol@example.org")
    page.fill("#id_username", "carol")
    page.fill("#id_password1", "a-long-and-unusual-passphrase")
    page.fill("#id_password2", "a-long-and-unusual-passphrase")
    page.screenshot(path=str(artifacts_dir / "device-signup.png"), full_page=True)
    page.click("button[type=submit]")

    page.wait_for_selector(".device-code")
    assert page.locator(".device-code").inner_text() == format_user_code(grant["user_code"])
    page.screenshot(path=str(artifacts_dir / "device-confirm-phone.png"), full_page=True)
    page.click("button[value=approve]")
    page.wait_for_url("**/device/done/approved")

    status, answer = cli.poll(grant["device_code"])
    assert status == 200
    status, whoami = call(live_server.url + "/v1/packets", token=answer["access_token"])
    assert status == 200 and whoami == {"packets": []}
