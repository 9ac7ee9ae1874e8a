"""`ltm search` and the MCP tool `search` against the real hub: what they send and print, the hub's
full-text search scoped as the wire API scopes it."""

import json

import pytest

from cli.testing.command_line import out_of, run, write_example
from ltm import mcp_server
from ltm.protocol.tool_calls import ToolError


@pytest.fixture
def packets(hub, settings, tmp_path, capsys):
    """Two personal packets of alice and one in her team alpha, on a hub that searches by words only
    (LTM_SEMANTIC=off: what a search finds by meaning is the hub's own tests' subject)."""
    settings.LTM_SEMANTIC = "off"
    out_of(capsys, ["teams", "create", "alpha"])
    for pid, goal, team in [
        ("01HVSEARCH00000000000000A1", "Stop the flaky test #107", None),
        ("01HVSEARCH00000000000000B2", "Rotate the leaked password", None),
        ("01HVSEARCH00000000000000C3", "Flaky deploys of the team", "alpha"),
    ]:
        out_of(capsys, ["push", write_example(tmp_path, id=pid, goal=goal)] + (["-t", team] if team else []))
    return hub


def test_search_prints_id_date_scope_goal_and_snippet(packets, capsys):
    lines = out_of(capsys, ["search", "flaky"]).splitlines()
    assert sorted(lines[::2]) == [
        "01HVSEARCH00000000000000A1  2026-04-22  personal  Stop the flaky test #107",
        "01HVSEARCH00000000000000C3  2026-04-22  team alpha  Flaky deploys of the team",
    ]
    assert all(line.startswith("    ") and line.strip() for line in lines[1::2])  # each result's snippet


def test_search_finds_by_any_word_order_and_stem_and_by_id(packets, capsys):
    (line, _snippet) = out_of(capsys, ["search", "tests", "flaky", "107"]).splitlines()
    assert line.startswith("01HVSEARCH00000000000000A1  2026-04-22  personal  Stop the flaky test #107")
    answer = json.loads(out_of(capsys, ["search", "01HVSEARCH00000000000000B2", "--json"]))
    assert [(r["id"], r["score"]) for r in answer["results"]] == [("01HVSEARCH00000000000000B2", 1.0)]
    assert {"id", "created_at", "goal", "team", "snippet", "score", "shared_by"} <= set(answer["results"][0])


def test_search_joins_its_words_and_passes_team_and_limit(packets, capsys):
    run(capsys, ["search", '"flaky test" -word', "or", "-t", "alpha", "--limit", "5"])
    assert packets.last("GET", "/v1/search").path == "/v1/search?q=%22flaky+test%22+-word+or&team=alpha&limit=5"


def test_search_in_a_team_and_out_of_it(packets, capsys):
    team = json.loads(out_of(capsys, ["search", "flaky", "-t", "alpha", "--json"]))["results"]
    assert [(r["id"], r["team"]) for r in team] == [("01HVSEARCH00000000000000C3", "alpha")]
    assert len(json.loads(out_of(capsys, ["search", "flaky", "--json"]))["results"]) == 2
    packets.as_user("bob")
    assert json.loads(out_of(capsys, ["search", "flaky", "--json"])) == {"results": []}


def test_search_with_no_match_says_so(packets, capsys):
    assert run(capsys, ["search", "zebra", "-t", "alpha"]) == ("", "ltm: no packets match 'zebra' in team alpha\n")


def test_the_hubs_refusals_reach_the_person(packets, capsys):
    assert "team 'nope' not found" in run(capsys, ["search", "flaky", "-t", "nope"], code=1).err
    err = run(capsys, ["search", "--limit", "101", "flaky"], code=1).err
    assert "limit must be a whole number from 1 to 100" in err


def test_search_needs_words(hub, capsys):
    assert "what should ltm search for?" in run(capsys, ["search", " "], code=2).err
    assert hub.sent == []


def test_the_mcp_search_tool(packets):
    assert set(mcp_server.SPECS["search"].input_schema["properties"]) == {"q", "team", "limit", "mode"}
    assert mcp_server.SPECS["search"].input_schema["required"] == ["q"]
    found = json.loads(mcp_server.call("search", {"q": "flaky", "team": "alpha", "limit": 3}))
    assert [r["id"] for r in found] == ["01HVSEARCH00000000000000C3"]
    assert packets.last("GET", "/v1/search").path == "/v1/search?q=flaky&team=alpha&limit=3&mode=hybrid"
    with pytest.raises(ToolError, match="team 'nope' not found"):
        mcp_server.call("search", {"q": "flaky", "team": "nope"})
    with pytest.raises(ToolError, match="q is required: the words to search for"):
        mcp_server.call("search", {"q": ""})
