"""`ltm search --mode`, `ltm related`, `ltm recall` and the `recall` tool of `ltm mcp`, against the
real hub: what they send, what they print, and the hub's refusals reaching the person."""

import json

import pytest

from cli.testing.command_line import out_of, packet_with, run, write_packet
from ltm import mcp_server
from ltm.protocol.tool_calls import ToolError

XDIST = packet_with(
    id="01HVRECALL00000000000000A1",
    goal="Stop pytest-xdist workers from deadlocking on the shared SQLite file",
    next_step="Name the database file after PYTEST_XDIST_WORKER",
    decisions=[
        {"what": "Give each xdist worker its own database file", "why": "SQLite locks the whole file", "locked": True}
    ],
    attempts=[{"tried": "Raised the busy timeout", "outcome": "failed", "learned": "A fixture holds its transaction"}],
    tags=["pytest"],
)
TWIN = packet_with(
    id="01HVRECALL00000000000000B2",
    goal="Concurrently running pytest processes freeze while both write one db file",
    next_step="Point every -n worker at its own temporary database",
    tags=["pytest"],
)
OTHER = packet_with(
    id="01HVRECALL00000000000000C3",
    goal="Invoice totals off by a cent because prices are summed as floats",
    next_step="Store amounts as integer cents",
    tags=["billing"],
)
TASK = "tests hang when the suite runs concurrently"


@pytest.fixture
def packets(hub, tmp_path, capsys):
    for packet in (XDIST, TWIN, OTHER):
        out_of(capsys, ["push", write_packet(tmp_path, packet, packet["id"])])
    return hub


def test_search_by_mode(packets, capsys):
    assert json.loads(out_of(capsys, ["search", TASK, "--mode", "keyword", "--json"])) == {"results": []}
    assert packets.last("GET", "/v1/search").path.endswith("&mode=keyword")
    results = json.loads(out_of(capsys, ["search", TASK, "--mode", "semantic", "--json"]))["results"]
    assert {r["id"] for r in results[:2]} == {XDIST["id"], TWIN["id"]}
    assert all(r["matched"] == ["semantic"] for r in results)
    assert "invalid choice: 'fuzzy'" in run(capsys, ["search", TASK, "--mode", "fuzzy"], code=2).err


def test_related_prints_the_nearest_packets(packets, capsys):
    [line] = out_of(capsys, ["related", XDIST["id"], "--limit", "1"]).splitlines()
    assert line.startswith(f"{TWIN['id']}  2026-04-22  personal  Concurrently running pytest processes")
    assert packets.last("GET", f"/v1/packets/{XDIST['id']}/related").path.endswith("/related?limit=1")
    answer = json.loads(out_of(capsys, ["related", XDIST["id"], "--json"]))
    assert [r["id"] for r in answer["results"]] == [TWIN["id"], OTHER["id"]]


def test_related_refusals_reach_the_person(packets, capsys):
    err = run(capsys, ["related", "01HVNOSUCHPACKET000000000Z"], code=1).err
    assert "packet 01HVNOSUCHPACKET000000000Z not found" in err
    assert (
        "must be a whole number from 1 to 50, not '0'"
        in run(capsys, ["related", XDIST["id"], "--limit", "0"], code=2).err
    )


def test_recall_prints_the_briefing(packets, capsys):
    text = out_of(capsys, ["recall", *TASK.split(), "--limit", "2"])
    assert text.startswith(f"# Recall: {TASK}\n")
    assert f"## 1. {XDIST['goal']}" in text or f"## 1. {TWIN['goal']}" in text
    assert "- Raised the busy timeout (failed): A fixture holds its transaction" in text
    assert "- Give each xdist worker its own database file (why: SQLite locks the whole file)" in text
    assert OTHER["goal"] not in text


def test_recall_needs_the_task(hub, capsys):
    assert "what is the task at hand?" in run(capsys, ["recall", " "], code=2).err
    assert hub.sent == []


def test_the_mcp_recall_tool(packets):
    spec = mcp_server.SPECS["recall"]
    assert set(spec.input_schema["properties"]) == {"text", "team", "limit"} and spec.input_schema["required"] == [
        "text"
    ]
    text = mcp_server.call("recall", {"text": TASK, "limit": 2})
    assert f"# Recall: {TASK}" in text and "A fixture holds its transaction" in text
    with pytest.raises(ToolError, match="team 'nope' not found"):
        mcp_server.call("recall", {"text": TASK, "team": "nope"})
    with pytest.raises(ToolError, match="text is required"):
        mcp_server.call("recall", {"text": "  "})
