"""`ltm share`, `ltm inbox`, `ltm unshare`, the resume picker's shared packets and the `share`,
`inbox` and `search` tools of `ltm mcp`, against the real hub (pytest-django's live server)."""

import json

import pytest

import ltm.clipboard
from cli.testing.command_line import PACKET_ID, out_of, pipe_stdin, write_example
from ltm import mcp_server
from ltm.main import main
from ltm.protocol.packet import example_packet
from ltm.protocol.resume import render_resume
from ltm.protocol.tool_calls import ToolError

GOAL = "Finish the parser handover"


@pytest.fixture
def shared(hub, tmp_path, capsys):
    """Alice's packet, shared with bob by `ltm share` (alice signed in): the share's id."""
    hub.person("bob")
    out_of(capsys, ["push", write_example(tmp_path, goal=GOAL)])
    assert main(["share", PACKET_ID, "bob", "--note", "start with the decisions"]) == 0
    captured = capsys.readouterr()
    share_id = captured.out.strip()
    assert len(share_id) == 26
    assert f"shared {PACKET_ID} with bob; it is in their `ltm inbox`" in captured.err
    assert f"`ltm unshare {share_id}`" in captured.err
    return share_id


def picker_lines(err):
    return [line for line in err.splitlines() if line.startswith("ltm:   ")]


def test_the_recipient_finds_the_share_in_the_inbox_marked_unread(shared, hub, capsys):
    hub.as_user("bob")
    assert main(["inbox"]) == 0
    captured = capsys.readouterr()
    header, row = captured.out.splitlines()
    assert header.split() == ["SHARE", "PACKET", "FROM", "SHARED", "GOAL", "NOTE"]
    assert row.startswith(f"*{shared}  {PACKET_ID}  alice  ")
    assert row.endswith(f"{GOAL}  start with the decisions")
    assert "* not read yet; `ltm resume <packet>` reads one" in captured.err
    (item,) = json.loads(out_of(capsys, ["inbox", "--json"]))["shares"]
    assert (item["id"], item["packet_id"], item["goal"], item["seen"]) == (shared, PACKET_ID, GOAL, False)
    assert item["from"]["display"] == "alice" and item["to"]["display"] == "bob"


def test_ls_of_someone_whose_packets_are_all_shared_with_them_points_to_the_inbox(shared, hub, capsys):
    hub.as_user("bob")
    assert main(["ls"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "ltm: no personal packets; yours are elsewhere: 1 packet shared with you (`ltm inbox`)\n"


def test_reading_the_packet_marks_it_seen_for_both(shared, hub, capsys):
    hub.as_user("bob")
    out_of(capsys, ["show", PACKET_ID])
    assert out_of(capsys, ["inbox"]).splitlines()[1].startswith(f" {shared}  {PACKET_ID}  alice  ")
    hub.as_user("alice")
    header, row = out_of(capsys, ["inbox", "--sent"]).splitlines()
    assert header.split()[2] == "TO"
    assert row.startswith(f" {shared}  {PACKET_ID}  bob  ")
    assert main(["inbox"]) == 0
    assert capsys.readouterr() == ("", "ltm: nothing shared with you yet\n")


def test_resume_offers_the_unread_shared_packet_first(shared, hub, tmp_path, monkeypatch, capsys):
    hub.as_user("bob")
    out_of(capsys, ["push", write_example(tmp_path, id="01HVBOBSOWNPACKET000000001", goal="Bob's own work")])
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: None)  # no clipboard: the block is printed
    pipe_stdin(monkeypatch, "1\n")
    assert main(["resume"]) == 0
    captured = capsys.readouterr()
    first, second = picker_lines(captured.err)
    assert first.startswith("ltm:   1  ") and first.endswith(f"  {GOAL}  (new, shared by alice)")
    assert second.startswith("ltm:   2  2026-04-22T") and second.endswith("  Bob's own work")
    assert captured.out == render_resume({**example_packet(), "goal": GOAL})

    pipe_stdin(monkeypatch, "1\n")  # read now: no longer offered
    assert main(["resume"]) == 0
    (only,) = picker_lines(capsys.readouterr().err)
    assert only.endswith("  Bob's own work")


def test_the_recipient_dismisses_and_the_sender_withdraws(shared, hub, tmp_path, capsys):
    hub.as_user("bob")
    assert main(["unshare", shared]) == 0
    assert f"share {shared} ended" in capsys.readouterr().err
    assert main(["show", PACKET_ID]) == 1
    assert f"packet {PACKET_ID} not found" in capsys.readouterr().err

    hub.as_user("alice")
    assert main(["unshare", shared]) == 1  # dismissed already: gone for the sender too
    assert f"share {shared} not found on " in capsys.readouterr().err
    again = out_of(capsys, ["share", PACKET_ID, "bob"]).strip()
    out_of(capsys, ["unshare", again])
    assert out_of(capsys, ["inbox", "--sent"]) == ""
    hub.as_user("bob")
    assert main(["pull", PACKET_ID]) == 1  # withdrawn: the next request no longer reads it


def test_sharing_again_keeps_the_share_and_replaces_its_note(shared, capsys):
    assert main(["share", PACKET_ID, "bob", "--note", "only the last part"]) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == shared
    assert f"bob already had {PACKET_ID} from you: the same share, its note now as given" in captured.err
    assert json.loads(out_of(capsys, ["inbox", "--sent", "--json"]))["shares"][0]["note"] == "only the last part"


def test_refusals_show_the_hubs_message(shared, hub, capsys):
    cases = [
        (["share", PACKET_ID, "nobody"], "no such user 'nobody' on "),
        (["share", PACKET_ID, "alice"], "you cannot share a packet with yourself"),
        (["share", "01HV0000000000000000000000", "bob"], "packet 01HV0000000000000000000000 not found on "),
        (["share", PACKET_ID, "bob", "--note", "x" * 501], "note is at most 500 characters; got 501"),
        (["unshare", "01HV0000000000000000000000"], "share 01HV0000000000000000000000 not found on "),
    ]
    for argv, message in cases:
        assert main(argv) == 1, argv
        assert message in capsys.readouterr().err
    hub.as_user("bob")
    assert main(["share", PACKET_ID, "alice"]) == 1  # bob may read it, not hand it on
    assert "only the packet's creator can share a personal packet" in capsys.readouterr().err
    assert main(["inbox", "--limit", "201"]) == 2


def test_search_names_who_shared_a_packet(shared, hub, capsys):
    hub.as_user("bob")
    (line, _snippet) = out_of(capsys, ["search", PACKET_ID]).splitlines()
    assert line.startswith(f"{PACKET_ID}  2026-04-22  shared by alice  {GOAL}")


def test_the_ltm_mcp_tools_share_inbox_and_search(hub, tmp_path, capsys):
    hub.person("bob")
    out_of(capsys, ["push", write_example(tmp_path, goal=GOAL)])
    answer = mcp_server.call("share", {"id": PACKET_ID, "to": "bob", "note": "yours now"})
    share_id = json.loads(out_of(capsys, ["inbox", "--sent", "--json"]))["shares"][0]["id"]
    assert answer == f"shared packet {PACKET_ID} with bob (share {share_id}); it is in their inbox."
    with pytest.raises(ToolError, match="no such user 'nobody' on "):
        mcp_server.call("share", {"id": PACKET_ID, "to": "nobody"})

    hub.as_user("bob")
    (item,) = json.loads(mcp_server.call("inbox", {}))
    assert (item["id"], item["packet_id"], item["note"], item["seen"]) == (share_id, PACKET_ID, "yours now", False)
    assert json.loads(mcp_server.call("inbox", {"direction": "out"})) == []
    (result,) = json.loads(mcp_server.call("search", {"q": PACKET_ID}))
    assert result["id"] == PACKET_ID and result["shared_by"] == "alice"
    mcp_server.call("resume", {"id": PACKET_ID})
    assert json.loads(mcp_server.call("inbox", {}))[0]["seen"] is True
