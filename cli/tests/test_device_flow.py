"""`ltm auth <host>`, the device flow, against the real hub: the browser step is the hub's own
approval service, and the clock a HubClock, which moves the hub's clock as the client sleeps."""

import json
import re
import socket
from urllib.parse import parse_qs, urlsplit

import pytest

import ltm
import ltm.device
from cli.testing.command_line import run
from cli.testing.live import HubClock, InstantTime
from cli.testing.stub import Stub
from ltm.main import main


@pytest.fixture
def device(hub, config_dir, monkeypatch):
    """A clean machine about to run the device flow against the live hub: (clock, pages opened)."""
    from oauth.testing import ensure_cli_application

    ensure_cli_application()
    (config_dir / "credentials").unlink()
    clock, opened = HubClock(), []
    monkeypatch.setattr(ltm.device, "time", clock)
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: opened.append(url) or True)
    return clock, opened


def decide(approve, user):
    """Approve (or deny) the one pending code as `user`, as the hub's approval page does."""
    from oauth.services import device_grant_decide

    device_grant_decide(actor=user, address="127.0.0.1", raw_code=HubClock.grant().user_code, approve=approve)


def polls(hub):
    return [r for r in hub.sent if r.path == "/oauth/token"]


def test_device_flow_polls_slows_down_and_stores_the_token(hub, device, config_dir, capsys):
    clock, opened = device

    def the_person(clock):
        if len(polls(hub)) == 1:  # the next poll comes early for the hub: it answers slow_down
            clock.hub_keeps_time = False
        elif len(polls(hub)) == 2 and not clock.hub_keeps_time:
            clock.hub_keeps_time = True
            decide(True, hub.person("alice")[0])

    clock.during_sleep = the_person
    err = run(capsys, ["auth"]).err  # the host from LTM_HUB_URL
    code = HubClock.grant().user_code
    assert f"Your code: {code[:4]}-{code[4:]}" in err
    assert f"Open {opened[0]} and check that it shows the same code.\n(opened it in your browser)" in err
    assert opened[0].startswith(hub.url + "/") and parse_qs(urlsplit(opened[0]).query)["user_code"] == [code]
    assert "code expires in 10:00" in err  # the first countdown line (not a terminal: plain lines)
    assert sum(clock.slept) == 5 + 5 + 10  # interval, interval, interval + 5 after slow_down
    assert len(polls(hub)) == 3
    authorize = hub.last("POST", "/oauth/authorize_device")
    assert authorize.headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert "Authorization" not in authorize.headers
    # the contract's two fields, then this machine's name (a field other hubs ignore)
    assert authorize.body == b"client_id=ltm-cli&scope=read+write&device_name=" + socket.gethostname().encode()
    assert re.fullmatch(
        rb"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=[\w-]+&client_id=ltm-cli",
        polls(hub)[-1].body,
    )
    token = (config_dir / "credentials").read_text()
    assert token.endswith("\n") and token.strip() not in (hub.token(), "")
    assert json.loads(run(capsys, ["ls", "--json"]).out) == {"packets": []}


@pytest.mark.parametrize(
    "meanwhile, message",
    [
        ("expired", "the code expired before it was approved; run `ltm auth "),
        ("gone", "sign-in failed: unknown device_code"),
    ],
)
def test_device_flow_stops_on_the_hubs_errors(hub, device, config_dir, capsys, meanwhile, message):
    from oauth2_provider.models import get_device_grant_model

    from oauth.testing import expire

    def hub_side(clock):
        grants = get_device_grant_model().objects
        expire(grants.get().device_code) if meanwhile == "expired" else grants.all().delete()

    device[0].during_sleep = hub_side
    assert message in run(capsys, ["auth", hub.url], code=1).err
    assert len(polls(hub)) == 1
    assert not (config_dir / "credentials").exists()


def test_the_client_gives_up_when_the_code_expires_on_its_own_clock(hub, device, capsys):
    clock, _ = device

    def time_flies(clock):
        if polls(hub):
            clock.now += 600

    clock.during_sleep = time_flies
    assert "the code expired before it was approved" in run(capsys, ["auth", hub.url], code=1).err
    assert len(polls(hub)) == 1  # no poll once the code expired


def test_ctrl_c_while_waiting_cancels_the_code_on_the_hub(hub, device, config_dir, capsys):
    """Ctrl-C during the polling tells the hub; the code can then not be approved."""
    from core.errors import BadRequest

    clock, opened = device

    def ctrl_c(clock):
        if polls(hub):  # after the first poll
            raise KeyboardInterrupt

    clock.during_sleep = ctrl_c
    err = run(capsys, ["auth"], code=130).err
    assert "the hub cancelled the code: it can no longer be approved" in err and err.endswith("ltm: cancelled\n")
    assert re.fullmatch(rb"device_code=[\w-]+&client_id=ltm-cli", hub.last("POST", "/oauth/device/cancel").body)
    assert not (config_dir / "credentials").exists()
    with pytest.raises(BadRequest, match="cancelled in the terminal"):
        decide(True, hub.person("alice")[0])


def test_device_flow_shows_the_page_that_carries_the_code(hub, device, monkeypatch, capsys):
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: False)  # no browser on this machine
    approved = []
    device[0].during_sleep = lambda clock: approved or approved.append(decide(True, hub.person("alice")[0]))
    err = run(capsys, ["auth", hub.url]).err
    page = re.search(r"Open (\S+) and check that it shows the same code\.\n\n", err)
    assert page and page[1].startswith(hub.url + "/") and "user_code=" in page[1]
    assert "opened it in your browser" not in err


def test_device_flow_without_a_complete_uri_says_to_enter_the_code(config_dir, monkeypatch, capsys):
    """A hub that sends only verification_uri (the RFC's minimum): the person types the code."""
    started = {"device_code": "dev-123", "user_code": "abcd2345", "expires_in": 300, "interval": 2}
    answers = {
        ("POST", "/oauth/authorize_device"): (200, {**started, "verification_uri": "https://hub.test/device"}, {}),
        ("POST", "/oauth/token"): (200, {"access_token": "tok-device", "token_type": "Bearer"}, {}),
    }
    opened = []
    monkeypatch.setattr(ltm.device, "time", InstantTime())
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: opened.append(url) or True)
    with Stub(answers) as other:
        err = run(capsys, ["auth", other.url]).err
    assert "Open https://hub.test/device and enter the code ABCD-2345." in err
    assert "check that it shows" not in err and opened == []  # nothing to open
    assert (config_dir / "credentials").read_text() == "tok-device\n"


@pytest.mark.parametrize("approve", [True, False])
def test_device_flow_end_to_end(hub, device, config_dir, monkeypatch, capsys, approve):
    """Approved (or denied) in the browser before the first poll; the device row the hub keeps."""
    from oauth.selectors import device_list

    alice = hub.person("alice")[0]
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: decide(approve, alice) or True)
    code = main(["auth", hub.url])
    err = capsys.readouterr().err
    if not approve:
        assert code == 1 and "sign-in was denied on the hub; run `ltm auth " in err
        assert not (config_dir / "credentials").exists()
        return
    assert code == 0, err
    assert err.endswith(f"ltm: signed in to {hub.url} as alice (alice@example.com)\n")

    # the device row: this machine's name, the client's version, and the hint whoami prints
    (device_row,) = device_list(viewer=alice)
    assert (device_row.name, device_row.client, device_row.client_version) == (
        socket.gethostname(),
        "ltm Python client",
        ltm.__version__,
    )
    assert device_row.requested_from == "127.0.0.1"
    identity = json.loads(run(capsys, ["auth", "whoami", "--json"]).out)
    assert identity["token_hash8"] == identity["token"]["hint"] == device_row.hint
    assert identity["token"]["kind"] == "oauth" and identity["token"]["name"] == socket.gethostname()
    assert identity["account"]["display_name"] == "alice"
