"""Devices and tokens in the browser: the Python client's `ltm auth` (run in-process against the
live hub, its browser step played by Chromium) shows its machine's name and address on the
approval page; the device's row carries the hint `ltm auth whoami` prints; renaming; a code
cancelled with Ctrl-C is refused; personal tokens with an expiry and a scope."""

import json
import socket

import pytest

import ltm.device
from accounts.models import ApiToken
from cli.testing.live import InstantTime
from ltm.main import main
from ltm.protocol.tokens import token_checksum, token_hint
from oauth.models import DeviceDetails

pytestmark = pytest.mark.browser

PASSWORD = "correct-horse-battery"


@pytest.fixture
def cli_config(tmp_path, monkeypatch):
    for name in ("LTM_HUB_URL", "LTM_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "ltm"))
    monkeypatch.setattr(ltm.device, "time", InstantTime())


def sign_in(page, username):
    page.fill("#id_login", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")


def test_approve_shows_the_machine_then_its_row_carries_the_whoami_hint(
    live_server, new_page, make_user, cli_config, monkeypatch, capsys, artifacts_dir
):
    make_user("alice", password=PASSWORD, email="alice@example.org")
    page = new_page()
    seen = {}

    def approve_in_chromium(url):
        page.goto(url)
        sign_in(page, "alice")
        page.wait_for_selector(".device-code")
        seen["name"] = page.inner_text(".device-name")
        seen["address"] = page.inner_text(".device-address")
        seen["client"] = page.inner_text(".device-client")
        seen["warning"] = page.locator(".device-other-network").count()
        page.screenshot(path=str(artifacts_dir / "device-confirm-details.png"), full_page=True)
        page.click("button[value=approve]")
        page.wait_for_url("**/device/done/approved")
        seen["done"] = page.inner_text("main")
        return True

    monkeypatch.setattr(ltm.device, "open_browser", approve_in_chromium)
    assert main(["auth", live_server.url]) == 0
    assert capsys.readouterr().err.endswith(f"ltm: signed in to {live_server.url} as alice (alice@example.org)\n")
    assert seen["name"] == socket.gethostname()
    assert seen["address"] == "127.0.0.1"
    assert seen["client"].startswith("ltm Python client ")
    assert seen["warning"] == 0  # the browser and the client are on one machine
    assert "ltm save" in seen["done"] and "ltm ls" in seen["done"] and "ltm resume" in seen["done"]
    page.click("text=Open the dashboard")
    page.wait_for_url(live_server.url + "/")

    assert main(["auth", "whoami", "--json"]) == 0
    hint = json.loads(capsys.readouterr().out)["token_hash8"]
    page.goto(live_server.url + "/tokens")
    row = page.locator(".device-row")
    assert row.count() == 1
    assert row.locator(".token-hint").inner_text() == hint
    assert row.locator(".device-name").inner_text() == socket.gethostname()
    page.screenshot(path=str(artifacts_dir / "tokens-device-row.png"), full_page=True)

    # rename it
    row.locator("summary").click()
    row.locator("input[name=name]").fill("work laptop")
    row.locator("button", has_text="Save").click()
    page.wait_for_selector(".device-row .device-name:text('work laptop')")
    assert main(["auth", "whoami", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["token"]["name"] == "work laptop"


def test_a_request_from_another_network_is_flagged(live_server, new_page, make_user, cli_config, monkeypatch):
    make_user("alice", password=PASSWORD)
    page = new_page()
    warnings = []

    def look(url):
        # as if the client had asked from elsewhere (the live server only sees 127.0.0.1)
        DeviceDetails.objects.update(requested_from="203.0.113.77")
        page.goto(url)
        sign_in(page, "alice")
        page.wait_for_selector(".device-code")
        warnings.append(page.inner_text(".device-other-network"))
        page.click("button[value=deny]")
        page.wait_for_url("**/device/done/denied")
        return True

    monkeypatch.setattr(ltm.device, "open_browser", look)
    assert main(["auth", live_server.url]) == 1
    assert "another network than this browser" in warnings[0] and "203.0.113.77" in warnings[0]


def test_a_code_cancelled_with_ctrl_c_cannot_be_approved(
    live_server, new_page, make_user, cli_config, monkeypatch, capsys
):
    make_user("alice", password=PASSWORD)
    opened = []
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: opened.append(url) or False)

    def ctrl_c(seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(ltm.device.time, "sleep", ctrl_c)
    assert main(["auth", live_server.url]) == 130
    assert "the hub cancelled the code" in capsys.readouterr().err

    page = new_page()
    page.goto(opened[0])
    sign_in(page, "alice")
    page.wait_for_selector(".device-problem")
    assert "cancelled in the terminal" in page.inner_text(".device-problem")
    assert page.locator("button[value=approve]").count() == 0


def test_create_a_token_with_an_expiry_and_a_scope(live_server, new_page, make_user, artifacts_dir):
    make_user("alice", password=PASSWORD)
    page = new_page()
    page.goto(live_server.url + "/tokens")
    sign_in(page, "alice")
    page.wait_for_selector("#id_name")
    page.fill("#id_name", "ci-reader")
    page.select_option("#id_expiry", "30")
    page.select_option("#id_scope", "read")
    page.click("text=Create token")
    page.wait_for_selector("#new-token-value")
    plaintext = page.inner_text("#new-token-value").strip()
    row = page.locator(".token-row", has_text="ci-reader")
    assert row.locator(".token-scope").inner_text().split() == ["read"]
    token = ApiToken.objects.get(name="ci-reader")
    assert row.locator(".token-expiry").inner_text() == token.expires_at.strftime("%-d %b %Y")
    assert row.locator(".token-hint").inner_text() == token_hint(token_checksum(plaintext))
    page.screenshot(path=str(artifacts_dir / "tokens-expiry-scope.png"), full_page=True)
