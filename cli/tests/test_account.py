"""`ltm account set-name` and `ltm account claim` against the real hub."""

import json

from cli.testing.command_line import out_of, run
from cli.testing.stub import Stub


def test_account_set_name_is_what_teammates_see(hub, capsys):
    out_of(capsys, ["teams", "create", "names"])
    assert run(capsys, ["account", "set-name", "Ada Lovelace"]) == (
        "Ada Lovelace\n",
        "ltm: teammates now see you as Ada Lovelace\n",
    )
    sent = hub.last("PATCH", "/v1/me")
    assert json.loads(sent.body) == {"display_name": "Ada Lovelace"}
    assert sent.headers["Authorization"] == f"Bearer {hub.token()}"
    members = json.loads(out_of(capsys, ["teams", "members", "names", "--json"]))["members"]
    assert [member["display"] for member in members] == ["Ada Lovelace"]
    assert "at most 80 characters" in run(capsys, ["account", "set-name", "x" * 81], code=1).err
    assert "control characters" in run(capsys, ["account", "set-name", "Ada\nLovelace"], code=1).err


def test_a_joined_account_gets_a_web_sign_in_link(hub, monkeypatch, capsys):
    out_of(capsys, ["teams", "create", "core"])
    url = out_of(capsys, ["invite", "-t", "core"]).strip()
    # alice signed up on the web: she has a password already
    assert "already has a password" in run(capsys, ["account", "claim"], code=1).err

    monkeypatch.setenv("LTM_CONFIG_DIR", str(hub.folder.with_name("clean")))
    assert "run `ltm account claim`" in run(capsys, ["join", url]).err
    captured = run(capsys, ["account", "claim"])
    assert hub.last("POST", "/v1/account/claim-link").headers["Authorization"].startswith("Bearer ")
    assert captured.out.startswith(f"{hub.url}/claim/")
    assert "works once and expires" in captured.err


def test_account_claim_on_a_hub_without_sign_in_links_says_so(config_dir, monkeypatch, capsys):
    """Another hub implementation: no POST /v1/account/claim-link (404)."""
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    with Stub({}) as other:
        monkeypatch.setenv("LTM_HUB_URL", other.url)
        assert f"{other.url} does not hand out web sign-in links" in run(capsys, ["account", "claim"], code=1).err
        assert other.seen == [("POST", "/v1/account/claim-link")]
