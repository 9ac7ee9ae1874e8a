"""The CLI against the real hub, started by pytest-django's live_server.

Run from the repository root (its pytest.ini sets DJANGO_SETTINGS_MODULE=hub.settings.test).
"""

import json
import os
import socket

import pytest

try:
    import django
    from django.conf import settings

    settings.INSTALLED_APPS  # noqa: B018 - raises when DJANGO_SETTINGS_MODULE is not set
    django.setup()

    from accounts.services import api_token_create, user_upsert
    from oauth.testing import ensure_cli_application
except Exception as exc:  # ImportError, ImproperlyConfigured: no Django project here
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise  # in CI the hub is always there: a failing import is a bug, not a reason to skip
    pytest.skip(
        f"the hub's Django project is not importable ({exc.__class__.__name__}: {exc}); "
        "run from the repository root: python -m pytest cli/tests",
        allow_module_level=True,
    )

from ltm.main import main
from ltm.protocol.packet import canonical_json, example_packet
from ltm.protocol.resume import render_resume

PACKET_ID = example_packet()["id"]


@pytest.fixture
def person(transactional_db):
    """A user with a personal API token: (user, token)."""

    def make(username):
        user, _ = user_upsert(username=username, password="correct-horse-battery")
        return user, api_token_create(actor=user, name="cli-test")[1]

    return make


@pytest.fixture
def signed_in(live_server, person, tmp_path, monkeypatch):
    """A clean config folder signed in to the live hub with `ltm auth <host> <token>`."""
    for name in ("LTM_HUB_URL", "LTM_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "alice"))
    _, token = person("alice")
    assert main(["auth", live_server.url, token]) == 0
    return token


def out_of(capsys, argv, code=0):
    assert main(argv) == code, capsys.readouterr().err
    return capsys.readouterr().out


def write_example(tmp_path, **changes):
    packet = example_packet()
    packet.update(changes)
    path = tmp_path / f"{packet['id']}.json"
    path.write_text(json.dumps(packet))
    return str(path)


def test_pasted_token_sign_in(signed_in, live_server, tmp_path, capsys):
    stored = (tmp_path / "alice" / "credentials").read_text()
    assert stored == signed_in + "\n"
    assert f'host = "{live_server.url}"' in (tmp_path / "alice" / "config.toml").read_text()
    assert json.loads(out_of(capsys, ["auth", "whoami", "--json"]))["host"] == live_server.url


def test_bad_token_is_refused_and_not_stored(live_server, transactional_db, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "x"))
    monkeypatch.delenv("LTM_HUB_URL", raising=False)
    assert main(["auth", live_server.url, "ltm_not-a-real-token"]) == 1
    assert "rejected this token" in capsys.readouterr().err
    assert not (tmp_path / "x" / "credentials").exists()


def test_push_ls_show_pull_resume_rm(signed_in, tmp_path, capsys):
    assert out_of(capsys, ["push", write_example(tmp_path)]) == PACKET_ID + "\n"
    listed = json.loads(out_of(capsys, ["ls", "--json"]))["packets"]
    assert [p["id"] for p in listed] == [PACKET_ID]
    assert listed[0]["goal"] == example_packet()["goal"]
    assert json.loads(out_of(capsys, ["show", "--json", PACKET_ID])) == example_packet()
    assert out_of(capsys, ["pull", PACKET_ID]) == canonical_json(example_packet())
    assert out_of(capsys, ["resume", PACKET_ID, "--no-copy"]) == render_resume(example_packet())
    out_of(capsys, ["rm", PACKET_ID])
    assert main(["show", PACKET_ID]) == 1
    assert f"packet {PACKET_ID} not found" in capsys.readouterr().err


def test_hub_rejection_reaches_the_person(signed_in, tmp_path, capsys):
    assert main(["push", "--lenient", write_example(tmp_path, tags=["Not A Tag"])]) == 1
    err = capsys.readouterr().err
    assert "packet rejected by" in err and "tags" in err


def test_numeric_ltm_version_is_explained_by_the_hub(signed_in, tmp_path, capsys):
    assert main(["push", "--lenient", write_example(tmp_path, ltm_version=0.2)]) == 1
    err = capsys.readouterr().err
    assert 'ltm_version must be a string such as "0.2", not a number' in err
    assert "supported: 0.1, 0.2" not in err


def test_hub_rejection_lists_one_error_a_line_like_local_validation(signed_in, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet.update(tags=["Not A Tag", "Also Bad"], extra=1)
    del packet["goal"]  # five errors: the hub's message shows three
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(packet))
    assert main(["push", "--lenient", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("ltm: packet rejected by ")
    assert len(lines) == 5 and all(line.startswith("  - ") for line in lines[1:])
    assert lines[1].startswith("  - $")
    assert lines[-1] == "  - ... and 2 more (push without --lenient to list every error)"


def test_what_ltm_example_prints_can_be_pushed_by_everyone(
    signed_in, live_server, person, tmp_path, monkeypatch, capsys
):
    out_of(capsys, ["push", write_example(tmp_path)])  # alice holds the protocol's fixed id
    _, bob_token = person("bob")
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "bob"))
    out_of(capsys, ["auth", live_server.url, bob_token])

    assert main(["push", write_example(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"packet id {PACKET_ID} is already taken" in err
    assert "give the packet a new id" in err and "`ltm example`" in err

    example = tmp_path / "fresh.json"
    example.write_text(out_of(capsys, ["example"]))
    new_id = json.loads(example.read_text())["id"]
    assert new_id != PACKET_ID
    assert out_of(capsys, ["push", str(example)]) == new_id + "\n"


def test_an_owner_leaving_is_sent_to_the_team_page(signed_in, live_server, tmp_path, capsys):
    from django.urls import reverse

    out_of(capsys, ["teams", "create", "core"])
    assert main(["teams", "leave", "core"]) == 1
    err = capsys.readouterr().err
    page = live_server.url + reverse("team-detail", args=["core"])  # the hub's own team page
    assert f"hand it on first with `ltm teams transfer core <member>` (or on the team's page {page})" in err
    assert "`ltm teams rm core`" in err


def test_another_persons_packet_is_not_found(signed_in, live_server, person, tmp_path, monkeypatch, capsys):
    out_of(capsys, ["push", write_example(tmp_path)])
    _, bob_token = person("bob")
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "bob"))
    out_of(capsys, ["auth", live_server.url, bob_token])
    assert main(["show", PACKET_ID]) == 1
    assert "not found" in capsys.readouterr().err
    assert json.loads(out_of(capsys, ["ls", "--json"])) == {"packets": []}


def test_publish_and_unpublish(signed_in, tmp_path, capsys):
    out_of(capsys, ["push", write_example(tmp_path)])
    url = out_of(capsys, ["publish", PACKET_ID]).strip()
    assert url.startswith("http")
    assert f"published  {url}" in out_of(capsys, ["show", PACKET_ID])
    out_of(capsys, ["unpublish", PACKET_ID])
    assert "published  " not in out_of(capsys, ["show", PACKET_ID])


def test_teams_invite_and_join_on_a_clean_config(signed_in, live_server, tmp_path, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "core"])
    out_of(capsys, ["push", write_example(tmp_path), "-t", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    assert "/v1/invites/" in url

    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "clean"))
    assert main(["join", url, "--name", "Bob Builder"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "core\n"  # the team's name, for scripts; the notes go to stderr
    assert "joined team core as Bob Builder (new account; run `ltm account claim`" in captured.err
    assert (tmp_path / "clean" / "credentials").read_text().strip()
    members = json.loads(out_of(capsys, ["teams", "members", "core", "--json"]))["members"]
    assert sorted(m["display"] for m in members) == ["Bob Builder", "alice"]
    assert [t["name"] for t in json.loads(out_of(capsys, ["teams", "ls", "--json"]))["teams"]] == ["core"]
    assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "--json", "-t", "core"]))["packets"]] == [PACKET_ID]
    out_of(capsys, ["teams", "leave", "core"])
    assert main(["ls", "-t", "core"]) == 1
    assert main(["join", url]) == 1
    assert "expired or already consumed" in capsys.readouterr().err


def test_a_joined_account_gets_a_web_sign_in_link(signed_in, live_server, tmp_path, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    assert main(["account", "claim"]) == 1  # alice signed up on the web: she has a password already
    assert "already has a password" in capsys.readouterr().err

    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "clean"))
    assert main(["join", url]) == 0
    err = capsys.readouterr().err
    assert 'joined team core as user "' in err  # a name the hub chose, quoted: not the role
    assert "run `ltm account claim`" in err
    assert main(["account", "claim"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{live_server.url}/claim/")
    assert "works once and expires" in captured.err


class InstantTime:
    """The device flow's clock and sleep, without the waiting."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


@pytest.mark.parametrize("approve", [True, False])
def test_device_flow_end_to_end(live_server, person, tmp_path, monkeypatch, capsys, approve):
    """`ltm auth <host>`: the browser step is replaced by the hub's own approval service."""
    from urllib.parse import parse_qs, urlsplit

    import ltm.device
    from oauth.services import device_grant_decide

    alice, _ = person("alice")
    ensure_cli_application()
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "device"))
    monkeypatch.delenv("LTM_HUB_URL", raising=False)
    monkeypatch.setattr(ltm.device, "time", InstantTime())
    opened = []

    def approve_in_the_hub(url):
        opened.append(url)
        code = next(iter(parse_qs(urlsplit(url).query).values()))[0]
        device_grant_decide(actor=alice, address="127.0.0.1", raw_code=code, approve=approve)
        return True

    monkeypatch.setattr(ltm.device, "open_browser", approve_in_the_hub)
    code = main(["auth", live_server.url])
    err = capsys.readouterr().err
    assert opened, f"the hub sent no verification_uri_complete: {err}"
    if not approve:
        assert code == 1 and "denied" in err
        assert not (tmp_path / "device" / "credentials").exists()
        return
    assert code == 0, err
    assert err.endswith(f"ltm: signed in to {live_server.url} as alice (alice@example.com)\n")
    token = (tmp_path / "device" / "credentials").read_text().strip()
    assert token and not token.startswith("-")
    assert main(["ls", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"packets": []}

    # the device row: this machine's name, the client's version, and the hint whoami prints
    import ltm
    from oauth.selectors import device_list

    (device,) = device_list(viewer=alice)
    assert (device.name, device.client, device.client_version) == (
        socket.gethostname(),
        "ltm Python client",
        ltm.__version__,
    )
    assert device.requested_from == "127.0.0.1"
    assert main(["auth", "whoami", "--json"]) == 0
    identity = json.loads(capsys.readouterr().out)
    assert identity["token_hash8"] == identity["token"]["hint"] == device.hint
    assert identity["token"]["kind"] == "oauth" and identity["token"]["name"] == socket.gethostname()
    assert identity["account"]["display_name"] == "alice"


def test_ctrl_c_while_waiting_cancels_the_code(live_server, person, tmp_path, monkeypatch, capsys):
    """Ctrl-C during the polling tells the hub; the code can then not be approved."""
    import ltm.device
    from core.errors import BadRequest
    from oauth.selectors import device_grant_find

    alice, _ = person("alice")
    ensure_cli_application()
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "device"))
    monkeypatch.delenv("LTM_HUB_URL", raising=False)
    clock = InstantTime()

    def ctrl_c(seconds):
        raise KeyboardInterrupt

    clock.sleep = ctrl_c
    monkeypatch.setattr(ltm.device, "time", clock)
    opened = []
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: opened.append(url) or True)
    assert main(["auth", live_server.url]) == 130
    assert "the hub cancelled the code" in capsys.readouterr().err
    code = opened[0].split("user_code=")[1]
    with pytest.raises(BadRequest, match="cancelled in the terminal"):
        device_grant_find(viewer=alice, address="127.0.0.1", raw_code=code)


def test_account_set_name_is_what_teammates_see(signed_in, live_server, person, tmp_path, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "names"])
    assert out_of(capsys, ["account", "set-name", "Ada Lovelace"]) == "Ada Lovelace\n"
    members = json.loads(out_of(capsys, ["teams", "members", "names", "--json"]))["members"]
    assert [member["display"] for member in members] == ["Ada Lovelace"]
    assert main(["account", "set-name", "Ada\nLovelace"]) == 1
    assert "control characters" in capsys.readouterr().err


def test_pushing_your_packet_into_another_scope_shows_the_hubs_reason(signed_in, tmp_path, capsys):
    path = write_example(tmp_path)
    out_of(capsys, ["push", path])
    out_of(capsys, ["teams", "create", "scopes"])
    assert main(["push", path, "-t", "scopes"]) == 1
    err = capsys.readouterr().err
    assert "refused the push: packet" in err
    assert "is one of your personal packets (ltm push without -t)" in err
    assert "someone else" not in err
