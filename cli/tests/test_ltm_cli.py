"""The command line against an in-process fake hub: wire shapes, output, files, exit codes."""

import hashlib
import io
import json
import re
import socket
import stat
import sys
from datetime import UTC, datetime

import pytest

import ltm.clipboard
from ltm.main import main
from ltm.protocol.packet import canonical_json, example_packet, packet_errors, parse_timestamp


def write_packet(tmp_path, packet, name="packet.json"):
    path = tmp_path / name
    path.write_text(json.dumps(packet))
    return str(path)


def packet_with(**changes):
    packet = example_packet()
    packet.update(changes)
    return packet


PROTOCOL_ID = "01JS5LTMEXAMPLEPACKET00001A"
CODE = "c0de" * 12  # an invite code of the hub's shape: 48 hex characters


def pipe_stdin(monkeypatch, text):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))


# --- push / save ---------------------------------------------------------------------------


def test_push_sends_the_file_with_the_bearer_and_prints_the_id(hub, tmp_path, capsys):
    path = write_packet(tmp_path, example_packet())
    assert main(["push", path]) == 0
    assert capsys.readouterr().out == "01JS5LTMEXAMPLEPACKET00001A\n"
    sent = hub.last("POST", "/v1/packets")
    assert sent.path == "/v1/packets"
    assert sent.headers["Authorization"] == "Bearer tok-alice"
    assert sent.headers["Content-Type"] == "application/json"
    assert sent.body == open(path, "rb").read()


def test_save_reads_stdin_and_pushes_into_a_team(hub, tmp_path, monkeypatch, capsys):
    assert main(["teams", "create", "core"]) == 0
    pipe_stdin(monkeypatch, json.dumps(example_packet()))
    assert main(["save", "-", "-t", "core"]) == 0
    assert hub.last("POST", "/v1/packets").path == "/v1/packets?team=core"
    capsys.readouterr()
    assert main(["ls", "--json", "-t", "core"]) == 0
    assert [p["id"] for p in json.loads(capsys.readouterr().out)["packets"]] == ["01JS5LTMEXAMPLEPACKET00001A"]
    assert main(["ls", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"packets": []}


def test_push_to_an_unknown_team_says_how_to_list_teams(hub, tmp_path, capsys):
    assert main(["push", write_packet(tmp_path, example_packet()), "-t", "nope"]) == 1
    assert "team 'nope' not found" in capsys.readouterr().err


def test_redaction_blocks_the_push_and_names_each_finding(hub, tmp_path, capsys):
    packet = packet_with(goal="Deploy with AKIAIOSFODNN7EXAMPLE from /home/dev/deploy.sh")
    assert main(["push", write_packet(tmp_path, packet)]) == 1
    err = capsys.readouterr().err
    assert "  - goal: abs-path (/hom…)\n" in err
    assert "  - goal: aws-key (AKIA…)\n" in err
    assert "AKIAIOSFODNN7EXAMPLE" not in err and "/dev/deploy.sh" not in err  # what it refuses to send
    assert "--allow-unredacted" in err
    assert not [r for r in hub.state.requests if r.method == "POST"]


def test_allow_unredacted_pushes_anyway(hub, tmp_path):
    packet = packet_with(goal="Deploy with AKIAIOSFODNN7EXAMPLE")
    assert main(["push", "--allow-unredacted", write_packet(tmp_path, packet)]) == 0
    assert "AKIAIOSFODNN7EXAMPLE" in hub.state.packets[packet["id"]]["body"]


def test_invalid_packet_lists_every_error_with_its_path_and_sends_nothing(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet["tags"] = ["Bad Tag"]
    assert main(["push", write_packet(tmp_path, packet)]) == 1
    err = capsys.readouterr().err
    assert "$.attempts[0].outcome" in err and "$.tags[0]" in err
    assert "ltm example" in err
    assert not hub.state.requests


def test_lenient_skips_local_validation_and_the_hub_decides(hub, tmp_path, capsys):
    packet = packet_with(tags=["Bad Tag"])
    assert main(["push", "--lenient", write_packet(tmp_path, packet)]) == 1
    assert "packet rejected by http://127.0.0.1" in capsys.readouterr().err
    assert hub.last("POST", "/v1/packets")  # it was sent


def test_lenient_hub_rejection_lists_the_errors_like_local_validation(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"][0]["outcome"] = "maybe"
    packet["tags"] = ["Bad Tag", "Also Bad"]
    path = write_packet(tmp_path, packet)
    assert main(["push", path]) == 1
    local = capsys.readouterr().err.splitlines()[1:]
    assert main(["push", "--lenient", path]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"ltm: packet rejected by {hub.url}"
    assert lines[1:] == local  # the same errors, one a line, in the same form
    assert len(local) == 3 and all(line.startswith("  - $.") for line in local)


def test_hub_rejection_of_more_than_three_errors_says_how_many_more(hub, tmp_path, capsys):
    packet = example_packet()
    packet["tags"] = ["Bad A", "Bad B", "Bad C", "Bad D", "Bad E"]
    assert main(["push", "--lenient", write_packet(tmp_path, packet)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert [line[:13] for line in lines[1:4]] == ["  - $.tags[0]", "  - $.tags[1]", "  - $.tags[2]"]
    assert lines[4:] == ["  - ... and 2 more (push without --lenient to list every error)"]


def test_hub_rejection_without_a_path_stays_one_error(hub, tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(packet_with(goal="x" * 40000)))
    assert main(["push", "--lenient", str(path)]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and "bytes; the maximum is 32768 bytes" in lines[1]


def test_a_taken_id_says_to_give_the_packet_a_new_id(hub, tmp_path, capsys):
    hub.state.tokens["tok-bob"] = "bob"
    hub.state.packets[PROTOCOL_ID] = {"owner": "bob", "team": None, "body": "{}", "published": None}
    assert main(["push", write_packet(tmp_path, example_packet())]) == 1
    err = capsys.readouterr().err
    assert f"packet id {PROTOCOL_ID} is already taken on {hub.url} by someone else" in err
    assert "give the packet a new id" in err and "`ltm example` prints a packet with a fresh id" in err


@pytest.mark.parametrize("body", ["[" * 100_000, "[" * 5000 + "]" * 5000], ids=["unclosed", "closed"])
def test_lenient_push_of_a_deeply_nested_file_is_refused_not_crashed(hub, tmp_path, capsys, body):
    path = tmp_path / "deep.json"
    path.write_text(body)
    assert main(["push", "--lenient", str(path)]) == 1
    assert "invalid JSON: nested more than 32 levels deep" in capsys.readouterr().err
    assert not hub.state.requests  # the redaction pre-flight cannot read it: nothing leaves


def test_lenient_from_config(hub, tmp_path, capsys):
    assert main(["config", "set", "lenient", "true"]) == 0
    assert main(["push", write_packet(tmp_path, packet_with(tags=["Bad Tag"]))]) == 1
    assert hub.last("POST", "/v1/packets")


def test_missing_file_is_a_clear_failure(hub, tmp_path, capsys):
    assert main(["push", str(tmp_path / "nope.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


# --- ls / show / pull / rm / resume ------------------------------------------------------


@pytest.fixture
def two_packets(hub, tmp_path):
    first = packet_with(id="01HV00000000000000000000A1", goal="First goal")
    second = packet_with(id="01HV00000000000000000000B2", goal="Second goal", parent_id=first["id"])
    for packet in (first, second):
        assert main(["push", write_packet(tmp_path, packet, packet["id"])]) == 0
    return first, second


def test_ls_is_newest_first_and_passes_the_limit(two_packets, hub, capsys):
    capsys.readouterr()
    assert main(["ls"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "CREATED", "GOAL"]
    assert lines[1].startswith("01HV00000000000000000000B2") and lines[1].endswith("Second goal")
    assert main(["ls", "--limit", "1", "--json"]) == 0
    assert hub.last("GET", "/v1/packets").path == "/v1/packets?limit=1"
    assert json.loads(capsys.readouterr().out) == {
        "packets": [{"id": "01HV00000000000000000000B2", "created_at": "2026-04-22T00:00:00Z", "goal": "Second goal"}]
    }


@pytest.mark.parametrize("limit", ["0", "-5", "501", "ten"])
def test_ls_refuses_a_limit_the_hub_would_ignore(hub, capsys, limit):
    assert main(["ls", "--limit", limit]) == 2
    assert f"argument --limit: must be a whole number from 1 to 500, not {limit!r}" in capsys.readouterr().err
    assert not hub.state.requests


def test_ls_and_push_of_an_unknown_team_say_the_same(hub, tmp_path, capsys):
    assert main(["ls", "-t", "nosuch"]) == 1
    listed = capsys.readouterr().err
    assert main(["push", write_packet(tmp_path, example_packet()), "-t", "nosuch"]) == 1
    assert listed == capsys.readouterr().err
    assert listed == f"ltm: team 'nosuch' not found on {hub.url}; list yours with `ltm teams ls`\n"


def test_ls_when_empty(hub, capsys):
    assert main(["ls"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no packets yet; push one with `ltm push <file>`\n" in captured.err


def test_ls_with_every_packet_in_a_team_says_where_they_are(hub, tmp_path, capsys):
    for name in ("alpha", "empty", "beta"):
        assert main(["teams", "create", name]) == 0
    assert main(["push", write_packet(tmp_path, example_packet()), "-t", "beta"]) == 0
    assert main(["push", write_packet(tmp_path, packet_with(id="01HV0000000000000000000ALP")), "-t", "alpha"]) == 0
    capsys.readouterr()
    assert main(["ls"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "ltm: no personal packets; yours are elsewhere: team alpha (`ltm ls -t alpha`), team beta (`ltm ls -t beta`)\n"
    )
    # The resume picker says alike.
    assert main(["resume"]) == 1
    assert capsys.readouterr().err == (
        "ltm: no personal packets to resume, and nothing unread shared with you; yours are elsewhere: "
        "team alpha (`ltm ls -t alpha`), team beta (`ltm ls -t beta`); resume one by id: `ltm resume <id>`\n"
    )


def test_ls_of_an_empty_team_suggests_pushing_into_that_team(hub, capsys):
    assert main(["teams", "create", "alpha"]) == 0
    capsys.readouterr()
    assert main(["ls", "-t", "alpha"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no packets in team alpha yet; push one with `ltm push <file> -t alpha`" in captured.err


def test_show_counts_in_the_singular_and_the_plural(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"] = packet["attempts"][:1]
    packet["decisions"] = packet["decisions"][:1]
    packet["methods"] = []
    packet["open_questions"] = ["a", "b"]
    assert main(["push", write_packet(tmp_path, packet)]) == 0
    assert main(["show", packet["id"]]) == 0
    out = capsys.readouterr().out
    locked = int(bool(packet["decisions"][0].get("locked")))
    assert f"contains   1 decision ({locked} locked), 1 attempt, 0 methods, 2 open questions\n" in out
    assert out.endswith(f"\nresume it with `ltm resume {packet['id']}`\n")  # by id: the id is enough


def test_show_pull_and_publish(two_packets, capsys):
    first, second = two_packets
    capsys.readouterr()
    assert main(["show", "--json", second["id"]]) == 0
    assert json.loads(capsys.readouterr().out) == second
    assert main(["pull", second["id"]]) == 0
    assert capsys.readouterr().out == canonical_json(second)
    assert main(["publish", second["id"]]) == 0
    assert capsys.readouterr().out == f"http://hub.test/p/{second['id']}\n"
    assert main(["show", second["id"]]) == 0
    out = capsys.readouterr().out
    assert "goal       Second goal" in out
    assert f"continues  {first['id']}" in out
    assert "published  http://hub.test/p/01HV00000000000000000000B2 (since 2026-04-22T10:00:00Z)" in out
    assert main(["unpublish", second["id"]]) == 0
    assert main(["show", second["id"]]) == 0
    assert "published" not in capsys.readouterr().out.replace("unpublished", "")


def test_publish_of_a_quarantined_packet_lists_its_findings_as_every_finding_prints(two_packets, hub, capsys):
    first, _ = two_packets
    # A hub that sent what matched would not get it printed: the client cuts it as its own.
    hub.state.quarantined[first["id"]] = [
        {"path": "next_step", "kind": "aws-access-key", "match": "AKIAQ7XZ4KJ2MP3RTW5N"},
        {"path": "goal", "kind": "github-token"},
    ]
    capsys.readouterr()
    assert main(["publish", first["id"]]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ltm: packet {first['id']} cannot be published: the hub's secret scan found ")
    assert f"`ltm findings clear {first['id']} --reason" in err
    assert err.endswith("\n  - next_step: aws-access-key (AKIA…)\n  - goal: github-token\n")
    assert "Q7XZ" not in err


@pytest.mark.parametrize("body", ["[" * 100_000, "[" * 5000 + "]" * 5000], ids=["unclosed", "closed"])
def test_pull_of_a_deeply_nested_answer_is_an_error_not_a_crash(two_packets, hub, capsys, body):
    first, _ = two_packets
    hub.state.packets[first["id"]]["body"] = body
    capsys.readouterr()
    assert main(["pull", first["id"]]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"ltm: {hub.url} returned a body for {first['id']} that is not JSON\n"


def test_rm_then_show_says_not_found(two_packets, capsys):
    first, _ = two_packets
    capsys.readouterr()
    assert main(["rm", first["id"]]) == 0
    assert f"deleted {first['id']}" in capsys.readouterr().err
    assert main(["show", first["id"]]) == 1
    assert f"packet {first['id']} not found" in capsys.readouterr().err
    assert main(["rm", first["id"]]) == 1


def test_resume_prints_the_block_with_no_copy(two_packets, capsys):
    _, second = two_packets
    capsys.readouterr()
    assert main(["resume", second["id"], "--no-copy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Resume from ltm packet")
    assert f"- Continues: {two_packets[0]['id']}" in out


def test_resume_with_an_id_prints_even_on_a_terminal(two_packets, monkeypatch, capsys):
    """As the Go client: with an id the block goes to stdout; only --copy (or the picker) uses
    the clipboard."""
    copied = []
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: copied.append(text) or "xclip")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    capsys.readouterr()
    assert main(["resume", two_packets[1]["id"]]) == 0
    assert capsys.readouterr().out.startswith("# Resume from ltm packet")
    assert copied == []


def test_json_output_keeps_the_hubs_shape(hub, monkeypatch, capsys):
    """`ls`, `teams ls` and `teams members` with --json (or LTM_OUTPUT=json) print what the hub
    answered, {"packets": [...]}, {"teams": [...]}, {"members": [...]}, as the Go client does."""
    assert main(["teams", "create", "core"]) == 0
    capsys.readouterr()
    assert main(["ls", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"packets": []}
    assert main(["teams", "ls", "--json"]) == 0
    assert [t["name"] for t in json.loads(capsys.readouterr().out)["teams"]] == ["core"]
    monkeypatch.setenv("LTM_OUTPUT", "json")
    assert main(["teams", "members", "core"]) == 0
    assert [m["role"] for m in json.loads(capsys.readouterr().out)["members"]] == ["owner"]


def test_resume_copies_to_the_clipboard(two_packets, monkeypatch, capsys):
    copied = []
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: copied.append(text) or "xclip")
    assert main(["resume", two_packets[1]["id"], "--copy"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "copied the resume block" in captured.err
    assert copied[0].startswith("# Resume from ltm packet")


def test_resume_without_clipboard_prints_and_says_so(two_packets, monkeypatch, capsys):
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: None)
    assert main(["resume", two_packets[1]["id"], "--copy"]) == 0
    captured = capsys.readouterr()
    assert "no clipboard tool found" in captured.err
    assert captured.out.startswith("# Resume from ltm packet")


def test_resume_picker_reads_the_choice(two_packets, monkeypatch, hub, capsys):
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: None)
    pipe_stdin(monkeypatch, "2\n")
    assert main(["resume"]) == 0
    assert hub.last("GET", "/v1/packets?").path == "/v1/packets?limit=50"
    # The fake hub, as the protocol, has no shares: its 404 leaves the person's own packets alone.
    assert hub.last("GET", "/v1/shares").path == "/v1/shares?direction=in&limit=50"
    captured = capsys.readouterr()
    assert "  2  2026-04-22T00:00  First goal" in captured.err
    assert "## Goal\n\nFirst goal" in captured.out


def test_resume_picker_at_end_of_input_is_no_choice(two_packets, monkeypatch, capsys):
    pipe_stdin(monkeypatch, "")
    assert main(["resume"]) == 1
    err = capsys.readouterr().err
    assert "no packet chosen (end of input)" in err and "`ltm resume <id>`" in err
    assert "cancelled" not in err


def test_resume_picker_empty_answer_is_no_choice(two_packets, monkeypatch, capsys):
    pipe_stdin(monkeypatch, "\n")
    assert main(["resume"]) == 1
    assert "no packet chosen" in capsys.readouterr().err


def test_resume_refuses_a_packet_that_does_not_validate(two_packets, hub, capsys):
    record = hub.state.packets[two_packets[0]["id"]]
    record["body"] = record["body"].replace('"goal"', '"server_field": 1, "goal"')
    assert main(["resume", two_packets[0]["id"], "--no-copy"]) == 1
    assert "does not validate" in capsys.readouterr().err


# --- teams, invites, join ---------------------------------------------------------------


def test_teams_lifecycle(hub, capsys):
    assert main(["teams", "create", "core"]) == 0
    assert hub.last("POST", "/v1/teams").body == b'{"name": "core"}'
    assert main(["teams", "ls", "--json"]) == 0
    capsys.readouterr()
    assert main(["teams"]) == 0
    assert "core" in capsys.readouterr().out
    assert main(["teams", "members", "core"]) == 0
    assert "owner" in capsys.readouterr().out
    assert main(["teams", "leave", "core"]) == 1
    err = capsys.readouterr().err
    assert (
        "you own team core, and an owner cannot leave; hand it on first with `ltm teams transfer core "
        f"<member>` (or on the team's page {hub.url}/teams/core) and leave once they accept, or delete the "
        "team with `ltm teams rm core`" in err
    )
    assert main(["teams", "rm", "core"]) == 0
    assert main(["teams", "members", "core"]) == 1
    assert "team 'core' not found" in capsys.readouterr().err


def test_invite_and_join_on_a_clean_machine(hub, config_dir, monkeypatch, capsys):
    assert main(["teams", "create", "core"]) == 0
    capsys.readouterr()
    assert main(["invite", "-t", "core"]) == 0
    url = capsys.readouterr().out.strip()
    assert url.startswith(hub.url + "/v1/invites/")
    assert hub.last("POST", "/v1/teams/core/invites").body == b"{}"

    # a clean machine: no config, no token, no env
    clean = config_dir.parent / "clean"
    monkeypatch.setenv("LTM_CONFIG_DIR", str(clean))
    monkeypatch.delenv("LTM_HUB_URL")
    assert main(["join", url]) == 0
    accept = hub.last("POST", "/v1/invites/")
    assert accept.path.endswith("/accept") and accept.body == b"{}"
    assert "Authorization" not in accept.headers
    captured = capsys.readouterr()
    assert captured.out == "core\n"
    assert (
        'joined team core as user "User2" (new account; run `ltm account claim` to sign in on the web)' in captured.err
    )
    token = (clean / "credentials").read_text()
    assert token.startswith("tok-user") and token.endswith("\n")
    assert stat.S_IMODE((clean / "credentials").stat().st_mode) == 0o600
    assert f'host = "{hub.url}"' in (clean / "config.toml").read_text()
    assert main(["teams", "ls", "--json"]) == 0
    assert [t["name"] for t in json.loads(capsys.readouterr().out)["teams"]] == ["core"]
    assert main(["join", url]) == 1
    assert "invite expired or already consumed" in capsys.readouterr().err


def test_join_with_a_stored_token_sends_it(hub, capsys):
    hub.state.tokens["tok-bob"] = "bob"
    hub.state.teams["core"] = {"id": "T1", "owner": "bob", "members": {"bob": "owner"}}
    hub.state.invites[CODE] = "core"
    assert main(["join", CODE]) == 0  # a bare code goes to the configured hub
    assert hub.last("POST", f"/v1/invites/{CODE}/accept").headers["Authorization"] == "Bearer tok-alice"
    assert "alice" in hub.state.teams["core"]["members"]


@pytest.mark.parametrize(
    "argv,config_user,sent",
    [
        (["--name", "Bob Builder"], None, {"display": "Bob Builder"}),
        (["--name", "Bob Builder"], "bob", {"display": "Bob Builder"}),
        ([], "bob", {"display": "bob"}),
        ([], None, {}),
    ],
)
def test_join_names_the_new_account(hub, config_dir, monkeypatch, capsys, argv, config_user, sent):
    hub.state.teams["core"] = {"id": "T1", "owner": "alice", "members": {"alice": "owner"}}
    hub.state.invites[CODE] = "core"
    clean = config_dir.parent / "clean"
    monkeypatch.setenv("LTM_CONFIG_DIR", str(clean))
    if config_user:
        assert main(["config", "set", "user", config_user]) == 0
    assert main(["join", f"{hub.url}/v1/invites/{CODE}", *argv]) == 0
    assert json.loads(hub.last("POST", f"/v1/invites/{CODE}/accept").body) == sent
    shown = f"as {sent['display']}" if sent else 'as user "User2"'
    assert f"ltm: joined team core {shown} (new account;" in capsys.readouterr().err


def test_join_with_an_account_says_as_whom(hub, capsys):
    hub.state.teams["core"] = {"id": "T1", "owner": "bob", "members": {"bob": "owner"}}
    hub.state.invites[CODE] = "core"
    assert main(["join", CODE]) == 0
    captured = capsys.readouterr()
    assert captured.out == "core\n"
    assert "ltm: joined team core as Alice\n" in captured.err


# --- output conventions -------------------------------------------------------------------


def test_results_go_to_stdout_and_notes_to_stderr(two_packets, capsys):
    """Scripts read stdout: only what they may want (URLs, ids, names); every note on stderr."""
    first, second = two_packets
    capsys.readouterr()
    expected_out = {
        ("publish", first["id"]): f"http://hub.test/p/{first['id']}\n",
        ("unpublish", first["id"]): "",
        ("rm", first["id"]): "",
        ("teams", "create", "core"): "core\n",
        ("teams", "rm", "core"): "",
    }
    for argv, out in expected_out.items():
        assert main(list(argv)) == 0
        captured = capsys.readouterr()
        assert captured.out == out, argv
        assert captured.err.startswith("ltm: ") and captured.err.count("\n") == 1, argv


def test_leave_prints_its_note_on_stderr(hub, capsys):
    hub.state.teams["core"] = {"id": "T1", "owner": "bob", "members": {"bob": "owner", "alice": "member"}}
    assert main(["teams", "leave", "core"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "ltm: left team core\n"


# --- auth ---------------------------------------------------------------------------------


def test_auth_with_a_pasted_token(hub, config_dir, monkeypatch, capsys):
    (config_dir / "credentials").unlink()
    monkeypatch.delenv("LTM_HUB_URL")
    assert main(["auth", hub.url, "tok-alice"]) == 0
    paths = [r.path for r in hub.state.requests]
    # the Go client's two checks, then who the token is, for the last line
    assert paths == ["/v1/healthz", "/v1/packets?limit=1", "/v1/me"]
    assert capsys.readouterr().err.endswith(f"ltm: signed in to {hub.url} as alice (alice@example.org)\n")
    assert (config_dir / "credentials").read_text() == "tok-alice\n"
    assert f'host = "{hub.url}"' in (config_dir / "config.toml").read_text()
    assert main(["auth", "whoami"]) == 0
    fingerprint = hashlib.sha256(b"tok-alice").hexdigest()[:8]
    captured = capsys.readouterr()
    assert captured.out == (  # text, as every verb prints by default
        f"hub          {hub.url}\n"
        "account      alice (alice@example.org)\n"
        "token        laptop (personal), scopes read write, never expires\n"
        f"fingerprint  {fingerprint}\n"
    )
    assert captured.err == ""
    assert main(["auth", "whoami", "--json"]) == 0
    captured = capsys.readouterr()
    # the Go client's output first (indented JSON, keys host and token_hash8), then the account
    assert captured.out.startswith(f'{{\n  "host": "{hub.url}",\n  "token_hash8": "{fingerprint}",\n')
    identity = json.loads(captured.out)
    assert identity["account"] == {
        "id": "ALICE",
        "username": "alice",
        "display_name": "alice",
        "email": "alice@example.org",
    }
    assert identity["token"]["hint"] == fingerprint
    assert captured.err == f"ltm: signed in to {hub.url} as alice (alice@example.org)\n"


def test_sign_in_to_a_hub_without_v1_me_still_succeeds(hub, config_dir, monkeypatch, capsys):
    (config_dir / "credentials").unlink()
    monkeypatch.delenv("LTM_HUB_URL")
    hub.state.has_me = False  # another hub implementation: 404
    assert main(["auth", hub.url, "tok-alice"]) == 0
    assert capsys.readouterr().err.endswith(f"ltm: signed in to {hub.url}\n")
    assert (config_dir / "credentials").read_text() == "tok-alice\n"


def test_whoami_says_when_the_hub_cannot_tell_the_account(hub, config_dir, capsys):
    (config_dir / "credentials").write_text("tok-revoked\n")
    fingerprint = hashlib.sha256(b"tok-revoked").hexdigest()[:8]
    assert main(["auth", "whoami"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"hub          {hub.url}\nfingerprint  {fingerprint}\n"
    assert "the hub did not say which account this is: token rejected" in captured.err
    (config_dir / "config.toml").write_text('output = "json"\n')  # as --json
    assert main(["auth", "whoami"]) == 0
    assert json.loads(capsys.readouterr().out) == {"host": hub.url, "token_hash8": fingerprint}


def test_json_goes_only_with_whoami(hub, capsys):
    assert main(["auth", hub.url, "tok-alice", "--json"]) == 2
    assert "--json goes with `ltm auth whoami`" in capsys.readouterr().err


def test_account_set_name(hub, capsys):
    assert main(["account", "set-name", "Ada Lovelace"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Ada Lovelace\n"
    assert captured.err == "ltm: teammates now see you as Ada Lovelace\n"
    sent = hub.last("PATCH", "/v1/me")
    assert json.loads(sent.body) == {"display_name": "Ada Lovelace"}
    assert sent.headers["Authorization"] == "Bearer tok-alice"
    assert main(["account", "set-name", "x" * 81]) == 1
    assert "at most 80 characters" in capsys.readouterr().err


def test_auth_with_a_rejected_token_stores_nothing(hub, config_dir, capsys):
    (config_dir / "credentials").unlink()
    assert main(["auth", hub.url, "tok-wrong"]) == 1
    assert "rejected this token" in capsys.readouterr().err
    assert not (config_dir / "credentials").exists()


@pytest.mark.parametrize("host, hint", [(None, "<host>"), ("hub.example.com", "https://hub.example.com")])
def test_whoami_when_signed_out_says_so_and_fails(config_dir, monkeypatch, capsys, host, hint):
    if host:
        monkeypatch.setenv("LTM_HUB_URL", host)
    assert main(["auth", "whoami"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # no empty host and token for a script to take as an answer
    assert captured.err == f"ltm: not signed in; run `ltm auth {hint}`\n"


class FakeTime:
    """A clock that only moves when the client sleeps."""

    def __init__(self):
        self.now = 1000.0
        self.slept = []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def fake_time(monkeypatch):
    clock = FakeTime()
    monkeypatch.setattr(ltm.device, "time", clock)
    return clock


@pytest.fixture
def browser(monkeypatch):
    opened = []
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: opened.append(url) or True)
    return opened


def grant(hub, **extra):
    hub.state.device_grant = {
        "device_code": "dev-123",
        "user_code": "abcd2345",
        "verification_uri": hub.url + "/device",
        "verification_uri_complete": hub.url + "/device?user_code=abcd2345",
        "expires_in": 300,
        "interval": 2,
        **extra,
    }


def test_device_flow_polls_slows_down_and_stores_the_token(hub, config_dir, fake_time, browser, capsys):
    (config_dir / "credentials").unlink()
    grant(hub)
    hub.state.device_answers = [
        (400, {"error": "authorization_pending"}),
        (400, {"error": "slow_down"}),
        (200, {"access_token": "tok-device", "token_type": "Bearer", "scope": "read write"}),
    ]
    assert main(["auth"]) == 0  # host from LTM_HUB_URL
    err = capsys.readouterr().err
    assert "ABCD-2345" in err and hub.url + "/device" in err
    assert "code expires in 5:00" in err  # the first countdown line (not a terminal: plain lines)
    assert browser == [hub.url + "/device?user_code=abcd2345"]
    assert sum(fake_time.slept) == 2 + 2 + 7  # interval, interval, interval + 5 after slow_down
    authorize = hub.last("POST", "/oauth/authorize_device")
    assert authorize.headers["Content-Type"] == "application/x-www-form-urlencoded"
    # the contract's two fields, then this machine's name (a field other hubs ignore)
    assert authorize.body == b"client_id=ltm-cli&scope=read+write&device_name=" + socket.gethostname().encode()
    poll = hub.last("POST", "/oauth/token")
    assert poll.body == (
        b"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dev-123&client_id=ltm-cli"
    )
    assert (config_dir / "credentials").read_text() == "tok-device\n"


@pytest.mark.parametrize(
    "error,message",
    [
        ("access_denied", "sign-in was denied"),
        ("expired_token", "the code expired"),
        ("invalid_grant", "sign-in failed: the device code is unknown"),
    ],
)
def test_device_flow_stops_on_errors(hub, config_dir, fake_time, browser, capsys, error, message):
    (config_dir / "credentials").unlink()
    grant(hub)
    hub.state.device_answers = [(400, {"error": error, "error_description": "the device code is unknown"})]
    assert main(["auth", hub.url]) == 1
    assert message in capsys.readouterr().err
    assert not (config_dir / "credentials").exists()


def test_ctrl_c_while_waiting_cancels_the_code_on_the_hub(hub, config_dir, fake_time, browser, capsys, monkeypatch):
    (config_dir / "credentials").unlink()
    grant(hub)
    hub.state.device_answers = [(400, {"error": "authorization_pending"})]

    def interrupted(seconds):
        if hub.state.requests[-1].path == "/oauth/token":  # after the first poll: Ctrl-C
            raise KeyboardInterrupt
        fake_time.now += seconds

    monkeypatch.setattr(fake_time, "sleep", interrupted)
    assert main(["auth"]) == 130
    assert hub.state.cancelled == ["dev-123"]
    assert hub.last("POST", "/oauth/device/cancel").body == b"device_code=dev-123&client_id=ltm-cli"
    err = capsys.readouterr().err
    assert "the hub cancelled the code: it can no longer be approved" in err and err.endswith("ltm: cancelled\n")
    assert not (config_dir / "credentials").exists()


def test_device_flow_gives_up_when_the_code_expires(hub, config_dir, fake_time, browser, capsys):
    grant(hub, expires_in=3, interval=2, verification_uri_complete=None)
    hub.state.device_answers = [(400, {"error": "authorization_pending"})] * 5
    assert main(["auth", hub.url]) == 1
    assert "the code expired before it was approved" in capsys.readouterr().err
    assert browser == []  # nothing to open without verification_uri_complete


def test_device_flow_shows_the_page_that_carries_the_code(hub, config_dir, fake_time, capsys, monkeypatch):
    monkeypatch.setattr(ltm.device, "open_browser", lambda url: False)  # no browser on this machine
    grant(hub)
    hub.state.device_answers = [(200, {"access_token": "tok-device"})]
    assert main(["auth", hub.url]) == 0
    err = capsys.readouterr().err
    assert f"Open {hub.url}/device?user_code=abcd2345 and check that it shows the same code." in err


def test_device_flow_without_a_complete_uri_says_to_enter_the_code(hub, config_dir, fake_time, browser, capsys):
    grant(hub, verification_uri_complete=None)
    hub.state.device_answers = [(200, {"access_token": "tok-device"})]
    assert main(["auth", hub.url]) == 0
    err = capsys.readouterr().err
    assert f"Open {hub.url}/device and enter the code ABCD-2345." in err
    assert "check that it shows" not in err


def test_device_flow_ctrl_c(hub, config_dir, monkeypatch, browser, capsys):
    grant(hub)

    class Interrupting(FakeTime):
        def sleep(self, seconds):
            raise KeyboardInterrupt

    monkeypatch.setattr(ltm.device, "time", Interrupting())
    assert main(["auth", hub.url]) == 130
    assert "cancelled" in capsys.readouterr().err


def test_auth_without_any_host_is_a_usage_error(config_dir, capsys):
    assert main(["auth"]) == 2
    assert "ltm auth <host>" in capsys.readouterr().err


# --- errors a person can act on ----------------------------------------------------------


def test_rejected_token(hub, config_dir, capsys):
    (config_dir / "credentials").write_text("stale\n")
    assert main(["ls"]) == 1
    assert f"token rejected by {hub.url}; run `ltm auth {hub.url}`" in capsys.readouterr().err


def test_unreachable_hub(config_dir, monkeypatch, capsys):
    config_dir.mkdir()
    (config_dir / "credentials").write_text("tok\n")
    monkeypatch.setenv("LTM_HUB_URL", "http://127.0.0.1:1")
    assert main(["ls"]) == 1
    assert "cannot reach http://127.0.0.1:1" in capsys.readouterr().err


def test_unreachable_host_from_the_command_line(config_dir, capsys):
    assert main(["auth", "http://127.0.0.1:1", "tok"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach http://127.0.0.1:1" in err
    assert "check the address http://127.0.0.1:1 and that the hub is running" in err
    assert "ltm config get host" not in err


def test_unreachable_configured_host_says_where_it_is_set(config_dir, monkeypatch, capsys):
    config_dir.mkdir()
    (config_dir / "credentials").write_text("tok\n")
    assert main(["config", "set", "host", "http://127.0.0.1:1"]) == 0
    assert main(["ls"]) == 1
    assert "check the address http://127.0.0.1:1 (see `ltm config get host`)" in capsys.readouterr().err
    monkeypatch.setenv("LTM_HUB_URL", "http://127.0.0.1:2")
    assert main(["ls"]) == 1
    assert "check the address http://127.0.0.1:2 (set by LTM_HUB_URL)" in capsys.readouterr().err


def test_not_signed_in(hub, config_dir, capsys):
    (config_dir / "credentials").unlink()
    assert main(["ls"]) == 1
    assert f"not signed in; run `ltm auth {hub.url}`" in capsys.readouterr().err


def test_no_hub_configured(config_dir, capsys):
    assert main(["ls"]) == 1
    assert "no hub configured; run `ltm auth <host>`" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [[], ["bogus"], ["invite"], ["show"], ["resume", "--copy", "--no-copy"], ["account"]])
def test_usage_errors_exit_2(config_dir, argv):
    assert main(argv) == 2


def test_help_exits_0(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "resume" in out and "account" in out


def test_help_lists_the_share_verbs(capsys):
    assert main(["--help"]) == 0
    commands = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("    ")}
    assert {"share", "inbox", "unshare"} <= commands


def test_account_claim_on_a_hub_without_sign_in_links_says_so(hub, capsys):
    assert main(["account", "claim"]) == 1
    assert f"{hub.url} does not hand out web sign-in links" in capsys.readouterr().err
    assert hub.last("POST", "/v1/account/claim-link").headers["Authorization"] == "Bearer tok-alice"


# --- example, platform ---------------------------------------------------------------------


def test_example_prints_a_valid_packet_with_a_fresh_id_and_time(config_dir, capsys):
    before = datetime.now(UTC).replace(microsecond=0)
    assert main(["example"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["example"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert packet_errors(first) == []
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", first["id"])
    assert len({first["id"], second["id"], PROTOCOL_ID}) == 3
    assert first["created_at"].endswith("Z")
    assert before <= parse_timestamp(first["created_at"]) <= datetime.now(UTC)
    protocol = example_packet()
    assert protocol["id"] == PROTOCOL_ID  # the protocol's example itself is unchanged
    assert {k: v for k, v in first.items() if k not in ("id", "created_at", "provenance")} == {
        k: v for k, v in protocol.items() if k not in ("id", "created_at", "provenance")
    }
    assert list(first) == list(protocol)  # same field order
    # Not signed in: credited to nobody, not to the protocol example's own writer.
    assert first["provenance"] == {**protocol["provenance"], "author_human": "example"}


def test_example_is_by_the_signed_in_person(hub, capsys):
    hub.state.displays["alice"] = "Alice Liddell"
    assert main(["example"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["author_human"] == "Alice Liddell"


def test_example_is_by_the_configured_user_without_asking_the_hub(hub, monkeypatch, capsys):
    monkeypatch.setenv("LTM_USER", "ada")
    assert main(["example"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["author_human"] == "ada"
    assert not hub.state.requests


def test_example_of_an_unreachable_hub_is_by_example(config_dir, monkeypatch, capsys):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("LTM_HUB_URL", f"http://127.0.0.1:{port}")
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    assert main(["example"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["author_human"] == "example"


def test_what_example_prints_can_be_pushed_by_everyone(hub, tmp_path, monkeypatch, capsys):
    hub.state.tokens["tok-bob"] = "bob"
    for token in ("tok-alice", "tok-bob"):
        (hub_config := tmp_path / token).mkdir()
        (hub_config / "credentials").write_text(token + "\n")
        monkeypatch.setenv("LTM_CONFIG_DIR", str(hub_config))
        assert main(["example"]) == 0
        path = write_packet(tmp_path, json.loads(capsys.readouterr().out), f"{token}.json")
        assert main(["push", path]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out == json.loads(open(path).read())["id"] + "\n"
    owners = sorted(record["owner"] for record in hub.state.packets.values())
    assert owners == ["alice", "bob"]


@pytest.mark.parametrize("verb", ["platform", "dashboard"])
def test_platform_opens_the_dashboard(config_dir, monkeypatch, capsys, verb):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    monkeypatch.setenv("LTM_HUB_URL", "https://hub.example.com/")
    assert main([verb]) == 0
    assert capsys.readouterr().out == "https://hub.example.com/\n"
    assert opened == ["https://hub.example.com/"]


@pytest.mark.parametrize(
    "text", ["https://example.com/foo", "core", "hello world", "sam@example.org", "https://hub.test/v1/invites/abc"]
)
def test_join_with_something_that_is_not_an_invite_says_so_without_asking_the_hub(hub, capsys, text):
    assert main(["join", text]) == 2
    err = capsys.readouterr().err
    assert f"ltm: that is not an invite link: {text} (an invite link looks like <hub>/v1/invites/<code>" in err
    assert "`ltm invite -t <team>`" in err
    assert not hub.state.requests


def test_join_with_a_well_formed_unknown_code_keeps_the_hubs_answer(hub, capsys):
    assert main(["join", "f" * 48]) == 1
    assert "ltm: invite expired or already consumed\n" in capsys.readouterr().err
    assert hub.last("POST", "/v1/invites/").path == f"/v1/invites/{'f' * 48}/accept"


def test_resume_picker_with_no_packets_anywhere_says_to_push_one(hub, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    assert main(["resume"]) == 1
    assert capsys.readouterr().err == (
        "ltm: no personal packets to resume, and nothing unread shared with you; push one with `ltm push <file>`\n"
    )
