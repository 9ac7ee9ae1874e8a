"""`ltm search` and the MCP tool `search` against the fake hub: what they send and print."""

import json

import pytest

from ltm.main import main
from ltm.protocol.packet import example_packet

from .test_ltm_mcp import run_session, text


@pytest.fixture
def packets(hub, tmp_path):
    """Two personal packets of alice and one in her team alpha."""
    assert main(["teams", "create", "alpha"]) == 0
    for pid, goal, team in [
        ("01HVSEARCH00000000000000A1", "Fix the flaky test", None),
        ("01HVSEARCH00000000000000B2", "Rotate the leaked password", None),
        ("01HVSEARCH00000000000000C3", "Flaky deploys of the team", "alpha"),
    ]:
        path = tmp_path / f"{pid}.json"
        path.write_text(json.dumps({**example_packet(), "id": pid, "goal": goal}))
        assert main(["push", str(path)] + (["-t", team] if team else [])) == 0
    return hub


def test_search_prints_id_date_scope_goal_and_snippet(packets, capsys):
    capsys.readouterr()
    assert main(["search", "flaky"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("01HVSEARCH00000000000000C3  2026-04-22  team alpha  Flaky deploys of the team")
    assert out[2].startswith("01HVSEARCH00000000000000A1  2026-04-22  personal  Fix the flaky test")
    assert out[1].startswith("    Clone github.com") and out[3].startswith("    Clone github.com")


def test_search_joins_its_words_and_passes_team_and_limit(packets, capsys):
    assert main(["search", '"flaky test" -word', "or", "-t", "alpha", "--limit", "5"]) == 0
    assert packets.last("GET", "/v1/search").path == "/v1/search?q=%22flaky+test%22+-word+or&team=alpha&limit=5"


def test_search_json_is_the_hubs_shape(packets, capsys):
    capsys.readouterr()
    assert main(["search", "password", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in answer["results"]] == ["01HVSEARCH00000000000000B2"]
    assert set(answer["results"][0]) == {"id", "created_at", "goal", "team", "snippet", "score"}


def test_search_with_no_match_says_so(packets, capsys):
    capsys.readouterr()
    assert main(["search", "zebra", "-t", "alpha"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "no packets match 'zebra' in team alpha" in captured.err


def test_search_in_an_unknown_team_says_how_to_list_teams(packets, capsys):
    assert main(["search", "flaky", "-t", "nope"]) == 1
    assert "team 'nope' not found" in capsys.readouterr().err


def test_search_needs_words(hub, capsys):
    assert main(["search", " "]) == 2
    assert "what should ltm search for?" in capsys.readouterr().err
    assert not [r for r in hub.state.requests if r.path.startswith("/v1/search")]


def test_the_mcp_search_tool(packets, config_dir):
    async def steps(client):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        return (
            tools["search"],
            await client.call_tool("search", {"q": "flaky", "team": "alpha", "limit": 3}),
            await client.call_tool("search", {"q": "flaky", "team": "nope"}),
            await client.call_tool("search", {"q": ""}),
        )

    tool, found, unknown, blank = run_session(config_dir, packets.url, steps)
    assert set(tool.input_schema["properties"]) == {"q", "team", "limit"}
    assert tool.input_schema["required"] == ["q"]
    assert not found.is_error
    assert [r["id"] for r in json.loads(text(found))] == ["01HVSEARCH00000000000000C3"]
    assert any(r.path == "/v1/search?q=flaky&team=alpha&limit=3" for r in packets.state.requests)
    assert unknown.is_error and "team 'nope' not found" in text(unknown)
    assert blank.is_error and "q is required: the words to search for" in text(blank)
