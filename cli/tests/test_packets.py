"""`ltm ls`, `show`, `pull`, `rm`, `publish` and `unpublish` against the real hub: what they ask,
what they print where, and the answers a real hub never gives (a stub's)."""

import json

import pytest

from cli.testing.command_line import PACKET_ID, out_of, packet_with, run, write_packet
from cli.testing.stub import Stub
from ltm.main import main
from ltm.protocol.packet import canonical_json, example_packet


def test_ls_is_newest_first_and_passes_the_limit(two_packets, hub, capsys):
    lines = out_of(capsys, ["ls"]).splitlines()
    assert lines[0].split() == ["ID", "CREATED", "GOAL"]
    assert lines[1].startswith("01HV00000000000000000000B2") and lines[1].endswith("Second goal")
    assert lines[2].startswith("01HV00000000000000000000A1") and lines[2].endswith("First goal")
    assert json.loads(out_of(capsys, ["ls", "--limit", "1", "--json"])) == {
        "packets": [{"id": "01HV00000000000000000000B2", "created_at": "2026-04-22T00:00:00Z", "goal": "Second goal"}]
    }
    assert hub.last("GET", "/v1/packets").path == "/v1/packets?limit=1"


@pytest.mark.parametrize("limit", ["0", "-5", "501", "ten"])
def test_ls_refuses_a_limit_the_hub_would_ignore(hub, capsys, limit):
    err = run(capsys, ["ls", "--limit", limit], code=2).err
    assert f"argument --limit: must be a whole number from 1 to 500, not {limit!r}" in err
    assert hub.sent == []


def test_ls_when_empty(hub, capsys):
    captured = run(capsys, ["ls"])
    assert captured.out == "" and "no packets yet; push one with `ltm push <file>`\n" in captured.err


def test_ls_with_every_packet_in_a_team_says_where_they_are(hub, tmp_path, capsys):
    for name in ("alpha", "empty", "beta"):
        out_of(capsys, ["teams", "create", name])
    out_of(capsys, ["push", write_packet(tmp_path, example_packet()), "-t", "beta"])
    out_of(capsys, ["push", write_packet(tmp_path, packet_with(id="01HV0000000000000000000ALP")), "-t", "alpha"])
    assert run(capsys, ["ls"]) == (
        "",
        "ltm: no personal packets; yours are elsewhere: team alpha (`ltm ls -t alpha`), team beta (`ltm ls -t beta`)\n",
    )
    # The resume picker says alike.
    assert run(capsys, ["resume"], code=1).err == (
        "ltm: no personal packets to resume, and nothing unread shared with you; yours are elsewhere: "
        "team alpha (`ltm ls -t alpha`), team beta (`ltm ls -t beta`); resume one by id: `ltm resume <id>`\n"
    )


def test_ls_of_an_empty_team_suggests_pushing_into_that_team(hub, capsys):
    out_of(capsys, ["teams", "create", "alpha"])
    captured = run(capsys, ["ls", "-t", "alpha"])
    assert captured.out == ""
    assert "no packets in team alpha yet; push one with `ltm push <file> -t alpha`" in captured.err


def test_show_counts_in_the_singular_and_the_plural(hub, tmp_path, capsys):
    packet = example_packet()
    packet["attempts"] = packet["attempts"][:1]
    packet["decisions"] = packet["decisions"][:1]
    packet["methods"] = []
    packet["open_questions"] = ["a", "b"]
    out_of(capsys, ["push", write_packet(tmp_path, packet)])
    out = out_of(capsys, ["show", packet["id"]])
    locked = int(bool(packet["decisions"][0].get("locked")))
    assert f"contains   1 decision ({locked} locked), 1 attempt, 0 methods, 2 open questions\n" in out
    assert out.endswith(f"\nresume it with `ltm resume {packet['id']}`\n")  # by id: the id is enough


def test_show_pull_publish_and_unpublish(two_packets, hub, capsys):
    first, second = two_packets
    assert json.loads(out_of(capsys, ["show", "--json", second["id"]])) == second
    assert out_of(capsys, ["pull", second["id"]]) == canonical_json(second)
    url = out_of(capsys, ["publish", second["id"]]).strip()
    assert url.startswith(f"{hub.url}/p/")
    assert hub.last("POST", "/v1/packets/").body == b""  # as the Go client: no body, no content type
    out = out_of(capsys, ["show", second["id"]])
    assert "goal       Second goal" in out
    assert f"continues  {first['id']}" in out
    assert f"published  {url} (since 20" in out
    out_of(capsys, ["unpublish", second["id"]])
    assert "published" not in out_of(capsys, ["show", second["id"]]).replace("unpublished", "")


@pytest.mark.parametrize("body", ["[" * 100_000, "[" * 5000 + "]" * 5000], ids=["unclosed", "closed"])
def test_pull_of_a_deeply_nested_answer_is_an_error_not_a_crash(config_dir, monkeypatch, capsys, body):
    """No hub serves such a body; a broken one might, and the client must not crash on it."""
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    with Stub({("GET", f"/v1/packets/{PACKET_ID}"): (200, body.encode(), {})}) as stub:
        monkeypatch.setenv("LTM_HUB_URL", stub.url)
        assert run(capsys, ["pull", PACKET_ID], code=1) == (
            "",
            f"ltm: {stub.url} returned a body for {PACKET_ID} that is not JSON\n",
        )


def test_rm_then_show_says_not_found(two_packets, capsys):
    first, _ = two_packets
    assert f"deleted {first['id']}" in run(capsys, ["rm", first["id"]]).err
    assert f"packet {first['id']} not found" in run(capsys, ["show", first["id"]], code=1).err
    assert main(["rm", first["id"]]) == 1


def test_another_persons_packet_is_not_found(two_packets, hub, capsys):
    hub.as_user("bob")
    assert "not found" in run(capsys, ["show", two_packets[0]["id"]], code=1).err
    assert json.loads(out_of(capsys, ["ls", "--json"])) == {"packets": []}


def test_json_output_keeps_the_hubs_shape(hub, monkeypatch, capsys):
    """`ls`, `teams ls` and `teams members` with --json (or LTM_OUTPUT=json) print what the hub
    answered, {"packets": [...]}, {"teams": [...]}, {"members": [...]}, as the Go client does."""
    out_of(capsys, ["teams", "create", "core"])
    assert json.loads(out_of(capsys, ["ls", "--json"])) == {"packets": []}
    assert [t["name"] for t in json.loads(out_of(capsys, ["teams", "ls", "--json"]))["teams"]] == ["core"]
    monkeypatch.setenv("LTM_OUTPUT", "json")
    assert [m["role"] for m in json.loads(out_of(capsys, ["teams", "members", "core"]))["members"]] == ["owner"]


def test_results_go_to_stdout_and_notes_to_stderr(two_packets, hub, capsys):
    """Scripts read stdout: only what they may want (URLs, ids, names); every note on stderr."""
    first, _ = two_packets
    for argv, out in (
        (["publish", first["id"]], None),  # the page's URL
        (["unpublish", first["id"]], ""),
        (["rm", first["id"]], ""),
        (["teams", "create", "core"], "core\n"),
        (["teams", "rm", "core"], ""),
    ):
        captured = run(capsys, argv)
        if out is None:
            assert captured.out.startswith(f"{hub.url}/p/") and captured.out.count("\n") == 1
        else:
            assert captured.out == out, argv
        assert captured.err.startswith("ltm: ") and captured.err.count("\n") == 1, argv
