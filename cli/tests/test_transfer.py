"""`ltm export` and `ltm import` against the real hub: everything the person may read out as one
stream, and back in, a packet at a time with push's checks, a second run changing nothing."""

import json
import sys

import pytest

from cli.testing.command_line import numbered, out_of, run, write_packet
from cli.testing.stub import Stub


def write_jsonl(tmp_path, packets, name="in.jsonl"):
    """The packets (dicts, or lines as they are) as a JSON-lines file; its path."""
    lines = [p if isinstance(p, str) else json.dumps(p) for p in packets]
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def pushed(hub):
    """The ids of the packets the client sent to the hub."""
    return [json.loads(r.body)["id"] for r in hub.sent if r.method == "POST" and r.path.startswith("/v1/packets")]


def test_export_writes_jsonl_to_a_file_and_markdown_to_stdout(hub, chain, tmp_path, capsys):
    target = tmp_path / "all.jsonl"
    assert "exported 3 packets" in run(capsys, ["export", "-o", str(target)]).err
    assert hub.last("GET", "/v1/export").path == "/v1/export?format=jsonl"
    assert [json.loads(line) for line in target.read_text().splitlines()] == list(chain)
    markdown = out_of(capsys, ["export", "--format", "markdown"])
    assert markdown.startswith("# ltm export")
    assert [line for line in markdown.splitlines() if line.startswith("## ")] == [f"## {p['goal']}" for p in chain]


def test_export_of_a_team(hub, chain, tmp_path, capsys):
    out_of(capsys, ["teams", "create", "core"])
    out_of(capsys, ["push", write_packet(tmp_path, numbered(9, goal="Team work")), "-t", "core"])
    out = out_of(capsys, ["export", "--format", "markdown", "-t", "core"])
    assert out.startswith("# ltm export") and "## Team work" in out and "goal 1" not in out
    assert hub.last("GET", "/v1/export").path == "/v1/export?format=markdown&team=core"


def test_export_of_an_unknown_team_leaves_no_file(hub, tmp_path, capsys):
    target = tmp_path / "team.jsonl"
    assert "team 'nope' not found" in run(capsys, ["export", "-t", "nope", "-o", str(target)], code=1).err
    assert not target.exists()


def test_export_shows_progress_only_on_a_terminal(hub, chain, tmp_path, capsys, monkeypatch):
    assert "\r" not in run(capsys, ["export", "-o", str(tmp_path / "a.jsonl")]).err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    err = run(capsys, ["export", "-o", str(tmp_path / "b.jsonl")]).err
    assert "\rltm: exporting [" in err and "3/3 packets" in err


def test_an_export_cut_short_is_an_error_not_a_shorter_file(config_dir, tmp_path, monkeypatch, capsys):
    """The connection drops midway (a fault no test can ask of the real hub): a stub's."""
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    body = (json.dumps(numbered(1)) + "\n").encode()
    path = "/v1/export?format=jsonl"
    with Stub({("GET", path): (200, body, {"X-LTM-Export-Count": "3"})}, cut=path) as stub:
        monkeypatch.setenv("LTM_HUB_URL", stub.url)
        target = tmp_path / "cut.jsonl"
        err = run(capsys, ["export", "-o", str(target)], code=1).err
    assert "broke off after" in err and "(IncompleteRead); run it again" in err
    assert not target.exists()


def test_import_pushes_reports_and_is_idempotent(hub, tmp_path, capsys):
    good = [numbered(1), numbered(2, parent_id=numbered(1)["id"])]
    secret = numbered(3, next_step="use AKIAIOSFODNN7EXAMPLE to deploy")
    invalid = numbered(4, extra=True)
    taken = numbered(5)
    hub.as_user("bob")
    out_of(capsys, ["push", write_packet(tmp_path, taken)])
    hub.as_user("alice")
    path = write_jsonl(tmp_path, [good[0], secret, invalid, good[1], taken, "", "not json"])

    first = run(capsys, ["import", path], code=1)
    assert first.out.splitlines() == [f"pushed\t{good[0]['id']}", f"pushed\t{good[1]['id']}"]
    assert "line 2 (01THREADPACKET000000000003): refused:" in first.err and "aws" in first.err
    assert "line 3 (01THREADPACKET000000000004): refused:" in first.err
    assert "line 5 (01THREADPACKET000000000005): refused:" in first.err and "already taken" in first.err
    assert "line 7 (no id): refused:" in first.err
    assert first.err.strip().endswith("2 pushed, 0 already there, 4 refused")
    assert json.loads(out_of(capsys, ["pull", good[1]["id"]])) == good[1]

    hub.sent.clear()
    second = run(capsys, ["import", path], code=1)
    assert second.out.splitlines() == [f"already there\t{good[0]['id']}", f"already there\t{good[1]['id']}"]
    assert "0 pushed, 2 already there, 4 refused" in second.err
    assert pushed(hub) == [taken["id"]]  # only the refused one is tried again


def test_import_into_a_team_and_a_clean_file_exits_0(hub, tmp_path, capsys):
    out_of(capsys, ["teams", "create", "core"])
    assert out_of(capsys, ["import", write_jsonl(tmp_path, [numbered(1)]), "-t", "core"]) == (
        f"pushed\t{numbered(1)['id']}\n"
    )
    assert hub.last("POST", "/v1/packets").path == "/v1/packets?team=core"
    assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "-t", "core", "--json"]))["packets"]] == [
        numbered(1)["id"]
    ]


def test_import_calls_a_packet_already_there_only_in_the_target_scope(hub, tmp_path, capsys):
    """A packet the person already has elsewhere (personal, or in another team) is not "already
    there": the push is tried and the hub's refusal reported, and the run exits 1."""
    for name in ("core", "web"):
        out_of(capsys, ["teams", "create", name])
    personal, in_core = numbered(1), numbered(2)
    out_of(capsys, ["push", write_packet(tmp_path, personal)])
    out_of(capsys, ["push", write_packet(tmp_path, in_core), "-t", "core"])
    path = write_jsonl(tmp_path, [personal, in_core])

    result = run(capsys, ["import", path, "-t", "core"], code=1)
    assert result.out == f"already there\t{in_core['id']}\n"  # in the team already: left alone
    assert (
        f"line 1 ({personal['id']}): refused: {hub.url} refused the push: packet {personal['id']} is one of your "
        "personal packets (ltm push without -t)" in result.err
    )
    assert result.err.endswith("ltm: 0 pushed, 1 already there, 1 refused\n")
    assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "--json"]))["packets"]] == [personal["id"]]

    result = run(capsys, ["import", path, "-t", "web"], code=1)
    assert result.out == "" and "is in team core (ltm push -t core); push it there" in result.err
    result = run(capsys, ["import", path], code=1)
    assert result.out == f"already there\t{personal['id']}\n" and "is in team core (ltm push -t core)" in result.err


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
    result = run(capsys, ["import", write_jsonl(tmp_path, [line, numbered(1)])], code=1)
    assert result.out == f"pushed\t{numbered(1)['id']}\n"
    assert "ltm: line 1 (no id): refused: packet rejected;" in result.err and reason in result.err
    assert result.err.endswith("ltm: 1 pushed, 0 already there, 1 refused\n")
    assert pushed(hub) == [numbered(1)["id"]]


def test_import_reports_what_the_hubs_scan_refused_without_the_secret(hub, tmp_path, capsys):
    good, secret = numbered(1), numbered(2, next_step="token ghp_" + "a" * 36)
    captured = run(capsys, ["import", write_jsonl(tmp_path, [good, secret])], code=1)
    assert captured.out == f"pushed\t{good['id']}\n"
    assert f"line 2 ({secret['id']}): refused:" in captured.err and "next_step: gh-token (ghp_…)" in captured.err
    assert "a" * 8 not in captured.err
    assert "1 pushed, 0 already there, 1 refused" in captured.err


def test_import_of_a_missing_file(hub, tmp_path, capsys):
    assert "cannot read" in run(capsys, ["import", str(tmp_path / "none.jsonl")], code=1).err
