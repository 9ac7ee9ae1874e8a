"""`ltm invite` and `ltm join` against the real hub: a link made by a member, joined from a clean
machine (a new account) or with a stored token, and what is not an invite link."""

import json
import stat

import pytest

from cli.testing.command_line import PACKET_ID, out_of, run, write_example


@pytest.fixture
def invite(hub, capsys):
    """An invite link to bob's team core (alice stays signed in)."""
    hub.as_user("bob")
    out_of(capsys, ["teams", "create", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    hub.as_user("alice")
    return url


def clean_machine(hub, monkeypatch):
    """The client on a machine with no token, no config and no host: its config folder."""
    folder = hub.folder.with_name("clean")
    monkeypatch.setenv("LTM_CONFIG_DIR", str(folder))
    monkeypatch.delenv("LTM_HUB_URL")
    return folder


def test_invite_and_join_on_a_clean_machine(hub, tmp_path, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "core"])
    out_of(capsys, ["push", write_example(tmp_path), "-t", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    assert url.startswith(hub.url + "/v1/invites/")
    assert hub.last("POST", "/v1/teams/core/invites").body == b"{}"

    clean = clean_machine(hub, monkeypatch)
    captured = run(capsys, ["join", url])
    accept = hub.last("POST", "/v1/invites/")
    assert accept.path.endswith("/accept") and accept.body == b"{}"
    assert "Authorization" not in accept.headers
    assert captured.out == "core\n"  # the team's name, for scripts; the notes go to stderr
    # a name the hub chose, quoted: not the role
    assert 'ltm: joined team core as user "' in captured.err
    assert "(new account; run `ltm account claim` to sign in on the web)" in captured.err
    token = (clean / "credentials").read_text()
    assert token.strip() and token.endswith("\n")
    assert stat.S_IMODE((clean / "credentials").stat().st_mode) == 0o600
    assert f'host = "{hub.url}"' in (clean / "config.toml").read_text()
    assert [t["name"] for t in json.loads(out_of(capsys, ["teams", "ls", "--json"]))["teams"]] == ["core"]
    assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "--json", "-t", "core"]))["packets"]] == [PACKET_ID]
    assert "invite expired or already consumed" in run(capsys, ["join", url], code=1).err


def test_join_with_a_stored_token_sends_it(hub, invite, capsys):
    code = invite.rsplit("/", 1)[1]
    captured = run(capsys, ["join", code])  # a bare code goes to the configured hub
    assert hub.last("POST", f"/v1/invites/{code}/accept").headers["Authorization"] == f"Bearer {hub.token()}"
    assert captured == ("core\n", "ltm: joined team core as alice\n")
    members = json.loads(out_of(capsys, ["teams", "members", "core", "--json"]))["members"]
    assert sorted(m["display"] for m in members) == ["alice", "bob"]


@pytest.mark.parametrize(
    "argv,config_user,sent",
    [
        (["--name", "Bob Builder"], None, {"display": "Bob Builder"}),
        (["--name", "Bob Builder"], "bob", {"display": "Bob Builder"}),
        ([], "robert", {"display": "robert"}),
        ([], None, {}),
    ],
)
def test_join_names_the_new_account(hub, invite, monkeypatch, capsys, argv, config_user, sent):
    clean_machine(hub, monkeypatch)
    if config_user:
        out_of(capsys, ["config", "set", "user", config_user])
    err = run(capsys, ["join", invite, *argv]).err
    assert json.loads(hub.last("POST", "/v1/invites/").body) == sent
    shown = f"as {sent['display']}" if sent else 'as user "'
    assert f"ltm: joined team core {shown}" in err and "(new account;" in err
    if sent:
        members = json.loads(out_of(capsys, ["teams", "members", "core", "--json"]))["members"]
        assert sent["display"] in [m["display"] for m in members]


@pytest.mark.parametrize(
    "text", ["https://example.com/foo", "core", "hello world", "sam@example.org", "https://hub.test/v1/invites/abc"]
)
def test_join_with_something_that_is_not_an_invite_says_so_without_asking_the_hub(hub, capsys, text):
    err = run(capsys, ["join", text], code=2).err
    assert f"ltm: that is not an invite link: {text} (an invite link looks like <hub>/v1/invites/<code>" in err
    assert "`ltm invite -t <team>`" in err
    assert hub.sent == []


def test_join_with_a_well_formed_unknown_code_keeps_the_hubs_answer(hub, capsys):
    assert "ltm: invite expired or already consumed\n" in run(capsys, ["join", "f" * 48], code=1).err
    assert hub.last("POST", "/v1/invites/").path == f"/v1/invites/{'f' * 48}/accept"
