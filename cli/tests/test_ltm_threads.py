"""thread, resume --thread, export, import and public links, against the in-process fake hub."""

import json
import sys

import pytest

from ltm.main import main
from ltm.protocol.packet import canonical_json, example_packet
from ltm.protocol.resume import render_resume


def packet(number, **changes):
    body = example_packet()
    body.update(id=f"01THREADPACKET{number:012d}", created_at=f"2026-04-{number:02d}T10:00:00Z", goal=f"goal {number}")
    body.update(changes)
    return body


def store(hub, body, owner="alice", team=None, published=None):
    hub.state.packets[body["id"]] = {"owner": owner, "team": team, "body": canonical_json(body), "published": published}
    hub.state.order.insert(0, body["id"])


def run(capsys, argv, code=0):
    assert main(argv) == code, capsys.readouterr().err
    return capsys.readouterr()


@pytest.fixture
def chain(hub):
    """Three packets, each continuing the one before; the first has a locked decision and a failed
    attempt the last does not repeat."""
    first = packet(
        1,
        decisions=[{"what": "Keep SQLite", "why": "one file", "locked": True}],
        attempts=[{"tried": "A cache", "outcome": "failed", "learned": "stale reads"}],
    )
    second = packet(2, parent_id=first["id"])
    third = packet(3, parent_id=second["id"], decisions=[], attempts=[])
    for body in (first, second, third):
        store(hub, body)
    return first, second, third


def test_thread_prints_the_chain_oldest_first(hub, chain, capsys):
    out = run(capsys, ["thread", chain[1]["id"]]).out
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "CREATED", "TEAM", "GOAL"]
    assert [line.split()[0] for line in lines[1:]] == [chain[0]["id"], "*" + chain[1]["id"], chain[2]["id"]]
    assert hub.last("GET", "/v1/packets/").path == f"/v1/packets/{chain[1]['id']}/thread"


def test_thread_json_is_the_hubs_answer(hub, chain, capsys):
    data = json.loads(run(capsys, ["thread", "--json", chain[0]["id"]]).out)
    assert [item["id"] for item in data["packets"]] == [body["id"] for body in chain]
    assert data["packets"][1] == {
        "id": chain[1]["id"],
        "parent_id": chain[0]["id"],
        "created_at": chain[1]["created_at"],
        "goal": "goal 2",
        "team": None,
    }


def test_thread_of_an_unknown_packet_says_so(hub, capsys):
    err = run(capsys, ["thread", "01NOSUCHPACKET000000000000"], code=1).err
    assert "not found" in err


def test_resume_thread_renders_the_newest_with_its_ancestors_carried_in(hub, chain, capsys):
    out = run(capsys, ["resume", chain[0]["id"], "--thread"]).out
    assert out == render_resume(chain[2], [chain[0], chain[1]])
    assert "Keep SQLite" in out and "A cache" in out
    assert f"From earlier packet: {chain[0]['id']}" in out
    assert out.index("## Locked decisions") < out.index("## Your first action")


def test_export_writes_jsonl_to_a_file(hub, chain, tmp_path, capsys):
    target = tmp_path / "all.jsonl"
    err = run(capsys, ["export", "-o", str(target)]).err
    assert [json.loads(line)["id"] for line in target.read_text().splitlines()] == [b["id"] for b in chain]
    assert "exported 3 packets" in err
    assert hub.last("GET", "/v1/export").path == "/v1/export?format=jsonl"


def test_export_markdown_to_stdout_for_a_team(hub, chain, capsys):
    assert main(["teams", "create", "core"]) == 0
    store(hub, packet(9, goal="Team work"), team="core")
    capsys.readouterr()
    out = run(capsys, ["export", "--format", "markdown", "-t", "core"]).out
    assert out.startswith("# ltm export") and "## Team work" in out and "goal 1" not in out
    assert hub.last("GET", "/v1/export").path == "/v1/export?format=markdown&team=core"


def test_export_of_an_unknown_team_leaves_no_file(hub, tmp_path, capsys):
    target = tmp_path / "team.jsonl"
    assert "team 'nope' not found" in run(capsys, ["export", "-t", "nope", "-o", str(target)], code=1).err
    assert not target.exists()


def test_export_shows_progress_only_on_a_terminal(hub, chain, tmp_path, capsys, monkeypatch):
    run(capsys, ["export", "-o", str(tmp_path / "a.jsonl")])
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    err = run(capsys, ["export", "-o", str(tmp_path / "b.jsonl")]).err
    assert "\rltm: exporting [" in err and "3/3 packets" in err


def test_import_pushes_reports_and_is_idempotent(hub, tmp_path, capsys):
    good = [packet(1), packet(2, parent_id=packet(1)["id"])]
    secret = packet(3, next_step="use AKIAIOSFODNN7EXAMPLE to deploy")
    invalid = packet(4)
    invalid["extra"] = True
    taken = packet(5)
    store(hub, taken, owner="bob")
    lines = [json.dumps(p) for p in (good[0], secret, invalid, good[1], taken)] + ["", "not json"]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")

    first = run(capsys, ["import", str(path)], code=1)
    assert first.out.splitlines() == [f"pushed\t{good[0]['id']}", f"pushed\t{good[1]['id']}"]
    assert "line 2 (01THREADPACKET000000000003): refused:" in first.err and "aws" in first.err
    assert "line 3 (01THREADPACKET000000000004): refused:" in first.err
    assert "line 5 (01THREADPACKET000000000005): refused:" in first.err and "already taken" in first.err
    assert "line 7 (no id): refused:" in first.err
    assert first.err.strip().endswith("2 pushed, 0 already there, 4 refused")
    assert json.loads(hub.state.packets[good[1]["id"]]["body"]) == good[1]

    stored = json.dumps(hub.state.packets, sort_keys=True)
    second = run(capsys, ["import", str(path)], code=1)
    assert second.out.splitlines() == [f"already there\t{good[0]['id']}", f"already there\t{good[1]['id']}"]
    assert "0 pushed, 2 already there, 4 refused" in second.err
    assert json.dumps(hub.state.packets, sort_keys=True) == stored  # nothing changed


def test_import_into_a_team_and_a_clean_file_exits_0(hub, tmp_path, capsys):
    assert main(["teams", "create", "core"]) == 0
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(packet(1)) + "\n")
    run(capsys, ["import", str(path), "-t", "core"])
    assert hub.last("POST", "/v1/packets").path == "/v1/packets?team=core"
    assert hub.state.packets[packet(1)["id"]]["team"] == "core"


def test_import_calls_a_packet_already_there_only_in_the_target_scope(hub, tmp_path, capsys):
    """A packet the person already has elsewhere (personal, or in another team) is not "already
    there": the push is tried and the hub's refusal reported, and the run exits 1."""
    for name in ("core", "web"):
        run(capsys, ["teams", "create", name])
    personal, in_core = packet(1), packet(2)
    store(hub, personal)
    store(hub, in_core, team="core")
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(personal) + "\n" + json.dumps(in_core) + "\n")

    result = run(capsys, ["import", str(path), "-t", "core"], code=1)
    assert result.out == f"already there\t{in_core['id']}\n"
    assert (
        f"line 1 ({personal['id']}): refused: {hub.url} refused the push: packet {personal['id']} is one of your "
        in (result.err)
    )
    assert result.err.endswith("ltm: 0 pushed, 1 already there, 1 refused\n")
    assert hub.state.packets[personal["id"]]["team"] is None

    result = run(capsys, ["import", str(path), "-t", "web"], code=1)
    assert result.out == "" and "is in team core; push it there" in result.err
    result = run(capsys, ["import", str(path)], code=1)
    assert result.out == f"already there\t{personal['id']}\n" and "is in team core" in result.err


@pytest.mark.parametrize(
    "line, reason",
    [
        ("[" * 100_000, "bytes; the maximum is 32768 bytes"),
        ('{"a":' * 100_000, "bytes; the maximum is 32768 bytes"),
        ("[" * 5000 + "]" * 5000, "invalid JSON: nested more than 32 levels deep"),
    ],
    ids=["unclosed-arrays", "unclosed-objects", "closed-arrays"],
)
def test_import_reports_a_deeply_nested_line_and_goes_on(hub, tmp_path, capsys, line, reason):
    path = tmp_path / "in.jsonl"
    path.write_text(line + "\n" + json.dumps(packet(1)) + "\n")
    result = run(capsys, ["import", str(path)], code=1)
    assert result.out == f"pushed\t{packet(1)['id']}\n"
    assert "ltm: line 1 (no id): refused: packet rejected;" in result.err and reason in result.err
    assert result.err.endswith("ltm: 1 pushed, 0 already there, 1 refused\n")


def test_import_of_a_missing_file(hub, tmp_path, capsys):
    assert "cannot read" in run(capsys, ["import", str(tmp_path / "none.jsonl")], code=1).err


# --- public links: no account needed ----------------------------------------------------------


@pytest.fixture
def public(hub, config_dir):
    """A packet of bob's published on the fake hub; the client has no token at all."""
    body = packet(7)
    store(hub, body, owner="bob", published=f"http://hub.test/p/{body['id']}")
    (config_dir / "credentials").unlink()
    return body, f"{hub.url}/p/{body['id']}"


def test_pull_show_and_resume_take_a_public_link(hub, public, capsys):
    body, url = public
    assert json.loads(run(capsys, ["pull", url]).out) == body
    assert run(capsys, ["show", url]).out.startswith(body["id"])
    assert run(capsys, ["resume", url]).out == render_resume(body)
    read = hub.last("GET", "/p/")
    assert read.path == f"/p/{body['id']}.json"
    assert "Authorization" not in read.headers


def test_show_of_a_public_link_suggests_a_resume_that_needs_no_account(hub, public, capsys):
    body, url = public
    assert run(capsys, ["show", url]).out.endswith(f"\nresume it with `ltm resume {url}` (no account needed)\n")


def test_a_public_json_link_works_too(hub, public, capsys):
    body, url = public
    assert json.loads(run(capsys, ["pull", url + ".json"]).out) == body


def test_a_dead_public_link_says_so(hub, public, capsys):
    err = run(capsys, ["pull", f"{hub.url}/p/nosuchslug"], code=1).err
    assert "not a published packet" in err


def test_resume_thread_of_a_public_link_is_a_usage_error(hub, public, capsys):
    assert "--thread needs a packet id" in run(capsys, ["resume", public[1], "--thread"], code=2).err


def test_an_export_cut_short_is_an_error_not_a_shorter_file(hub, chain, tmp_path, capsys):
    hub.state.cut_export = True
    target = tmp_path / "cut.jsonl"
    err = run(capsys, ["export", "-o", str(target)], code=1).err
    assert "broke off after" in err and "(IncompleteRead); run it again" in err
    assert not target.exists()
