"""`ltm auth <host> <token>` and `ltm auth whoami` against the real hub, and the errors a person can
act on (a rejected token, a hub out of reach, nothing configured). The device flow is
test_device_flow.py's."""

import hashlib
import json

import pytest

from cli.testing.command_line import run
from cli.testing.stub import Stub
from ltm.main import main


def test_auth_with_a_pasted_token(hub, config_dir, monkeypatch, capsys):
    (config_dir / "credentials").unlink()
    monkeypatch.delenv("LTM_HUB_URL")
    token = hub.token()
    captured = run(capsys, ["auth", hub.url, token])
    # the Go client's two checks, then who the token is, for the last line
    assert [r.path for r in hub.sent] == ["/v1/healthz", "/v1/packets?limit=1", "/v1/me"]
    assert captured.err.endswith(f"ltm: signed in to {hub.url} as alice (alice@example.com)\n")
    assert (config_dir / "credentials").read_text() == token + "\n"
    assert f'host = "{hub.url}"' in (config_dir / "config.toml").read_text()

    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:8]
    assert run(capsys, ["auth", "whoami"]) == (  # text, as every verb prints by default
        f"hub          {hub.url}\n"
        "account      alice (alice@example.com)\n"
        "token        laptop (personal), scopes read write, never expires\n"
        f"fingerprint  {fingerprint}\n",
        "",
    )
    captured = run(capsys, ["auth", "whoami", "--json"])
    # the Go client's output first (indented JSON, keys host and token_hash8), then the account
    assert captured.out.startswith(f'{{\n  "host": "{hub.url}",\n  "token_hash8": "{fingerprint}",\n')
    identity = json.loads(captured.out)
    assert identity["account"] == {
        "id": hub.person("alice")[0].pk,
        "username": "alice",
        "display_name": "alice",
        "email": "alice@example.com",
    }
    assert identity["token"]["hint"] == fingerprint
    assert captured.err == f"ltm: signed in to {hub.url} as alice (alice@example.com)\n"


def test_sign_in_to_a_hub_without_v1_me_still_succeeds(config_dir, capsys):
    """Another hub implementation: the protocol's two checks pass, GET /v1/me answers 404."""
    answers = {("GET", "/v1/healthz"): (200, {"ok": True, "version": "0.2"}, {})}
    answers[("GET", "/v1/packets?limit=1")] = (200, {"packets": []}, {})
    with Stub(answers) as other:
        assert run(capsys, ["auth", other.url, "tok-alice"]).err.endswith(f"ltm: signed in to {other.url}\n")
        assert other.seen[-1] == ("GET", "/v1/me")
    assert (config_dir / "credentials").read_text() == "tok-alice\n"


def test_a_rejected_token_is_not_stored(hub, config_dir, monkeypatch, capsys):
    (config_dir / "credentials").unlink()
    monkeypatch.delenv("LTM_HUB_URL")
    assert "rejected this token" in run(capsys, ["auth", hub.url, "ltm_not-a-real-token"], code=1).err
    assert not (config_dir / "credentials").exists()


def test_whoami_says_when_the_hub_cannot_tell_the_account(hub, config_dir, capsys):
    (config_dir / "credentials").write_text("tok-revoked\n")
    fingerprint = hashlib.sha256(b"tok-revoked").hexdigest()[:8]
    captured = run(capsys, ["auth", "whoami"])
    assert captured.out == f"hub          {hub.url}\nfingerprint  {fingerprint}\n"
    assert "the hub did not say which account this is: token rejected" in captured.err
    (config_dir / "config.toml").write_text('output = "json"\n')  # as --json
    assert json.loads(run(capsys, ["auth", "whoami"]).out) == {"host": hub.url, "token_hash8": fingerprint}


def test_json_goes_only_with_whoami(config_dir, capsys):
    assert "--json goes with `ltm auth whoami`" in run(capsys, ["auth", "http://127.0.0.1:9", "t", "--json"], 2).err


@pytest.mark.parametrize("host, hint", [(None, "<host>"), ("hub.example.com", "https://hub.example.com")])
def test_whoami_when_signed_out_says_so_and_fails(config_dir, monkeypatch, capsys, host, hint):
    if host:
        monkeypatch.setenv("LTM_HUB_URL", host)
    # no empty host and token for a script to take as an answer
    assert run(capsys, ["auth", "whoami"], code=1) == ("", f"ltm: not signed in; run `ltm auth {hint}`\n")


def test_auth_without_any_host_is_a_usage_error(config_dir, capsys):
    assert "ltm auth <host>" in run(capsys, ["auth"], code=2).err


# --- errors a person can act on ----------------------------------------------------------


def test_a_rejected_token_says_to_sign_in_again(hub, config_dir, capsys):
    (config_dir / "credentials").write_text("stale\n")
    assert f"token rejected by {hub.url}; run `ltm auth {hub.url}`" in run(capsys, ["ls"], code=1).err


def test_not_signed_in(hub, config_dir, capsys):
    (config_dir / "credentials").unlink()
    assert f"not signed in; run `ltm auth {hub.url}`" in run(capsys, ["ls"], code=1).err


def test_no_hub_configured(config_dir, capsys):
    assert "no hub configured; run `ltm auth <host>`" in run(capsys, ["ls"], code=1).err


def test_unreachable_hub(config_dir, monkeypatch, capsys):
    config_dir.mkdir()
    (config_dir / "credentials").write_text("tok\n")
    monkeypatch.setenv("LTM_HUB_URL", "http://127.0.0.1:1")
    assert "cannot reach http://127.0.0.1:1" in run(capsys, ["ls"], code=1).err


def test_unreachable_host_from_the_command_line(config_dir, capsys):
    err = run(capsys, ["auth", "http://127.0.0.1:1", "tok"], code=1).err
    assert "cannot reach http://127.0.0.1:1" in err
    assert "check the address http://127.0.0.1:1 and that the hub is running" in err
    assert "ltm config get host" not in err


def test_unreachable_configured_host_says_where_it_is_set(config_dir, monkeypatch, capsys):
    config_dir.mkdir()
    (config_dir / "credentials").write_text("tok\n")
    run(capsys, ["config", "set", "host", "http://127.0.0.1:1"])
    assert "check the address http://127.0.0.1:1 (see `ltm config get host`)" in run(capsys, ["ls"], code=1).err
    monkeypatch.setenv("LTM_HUB_URL", "http://127.0.0.1:2")
    assert "check the address http://127.0.0.1:2 (set by LTM_HUB_URL)" in run(capsys, ["ls"], code=1).err


@pytest.mark.parametrize("argv", [[], ["bogus"], ["invite"], ["show"], ["resume", "--copy", "--no-copy"], ["account"]])
def test_usage_errors_exit_2(config_dir, argv):
    assert main(argv) == 2


def test_help_exits_0_and_lists_the_verbs(capsys):
    out = run(capsys, ["--help"]).out
    assert "resume" in out and "account" in out
    commands = {line.split()[0] for line in out.splitlines() if line.startswith("    ")}
    assert {"share", "inbox", "unshare"} <= commands
