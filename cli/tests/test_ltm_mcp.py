"""`ltm mcp` driven as a subprocess by the official MCP SDK's stdio client, against the real hub."""

import json
import re
import subprocess
import sys

from cli.testing import fresh_packet, mcp_env, packet_with_a_secret, run_session, text, two_packet_thread
from cli.testing.command_line import write_packet
from ltm import verbs
from ltm.main import main
from ltm.protocol.packet import example_packet, schema
from ltm.protocol.resume import render_resume
from ltm.protocol.tokens import token_identity

TOOLS = {
    "save",
    "push",
    "resume",
    "ls",
    "show",
    "pull",
    "rm",
    "publish",
    "unpublish",
    "share",
    "inbox",
    "example",
    "whoami",
    "thread",
    "search",
    "recall",
    "platform",
}


def test_tools_example_save_and_resume(hub, config_dir, tmp_path):
    assert main(["push", write_packet(tmp_path, example_packet())]) == 0  # older than what the tool saves

    async def steps(client):
        listed = (await client.list_tools()).tools
        results = {"tools": {tool.name: tool for tool in listed}}
        results["example"] = await client.call_tool("example", {})
        invalid = example_packet()
        invalid["attempts"][0]["outcome"] = "maybe"
        invalid["tags"] = ["Bad Tag"]
        invalid["extra"] = 1
        results["invalid"] = await client.call_tool("save", {"packet": invalid})
        results["secret"] = await client.call_tool("save", {"packet": packet_with_a_secret()})
        results["save"] = await client.call_tool("save", {"packet": fresh_packet()})
        new_id = re.search(r"saved packet (\S+)", text(results["save"])).group(1)
        results["id"] = new_id
        results["resume"] = await client.call_tool("resume", {"id": new_id})
        results["ls"] = await client.call_tool("ls", {"limit": 1})
        results["whoami"] = await client.call_tool("whoami", {})
        results["platform"] = await client.call_tool("platform", {})
        results["missing"] = await client.call_tool("resume", {"id": "01HV0000000000000000000000"})
        return results

    results = run_session(config_dir, hub.url, steps)

    assert set(results["tools"]) == TOOLS
    description = results["tools"]["save"].description
    for name in schema("0.2")["properties"]:
        assert name in description, f"the save tool does not describe {name}"
    for word in ('"succeeded", "failed", "partial"', '"low", "medium", "high"', "32 KiB", "1024", "2048"):
        assert word in description
    assert set(results["tools"]["push"].input_schema["properties"]) == {"packet", "allow_unredacted", "team"}
    assert results["tools"]["rm"].input_schema["required"] == ["id"]

    assert not results["example"].is_error
    example = json.loads(text(results["example"]))
    assert example["id"] != example_packet()["id"]  # a fresh id: the protocol's own may be taken
    unchanged = {"id": None, "created_at": None, "provenance": None}
    assert {**example, **unchanged} == {**example_packet(), **unchanged}
    assert example["provenance"]["author_human"] == "example"  # not the protocol example's writer

    invalid = text(results["invalid"])
    assert results["invalid"].is_error
    assert "packet rejected with 3 errors;" in invalid
    assert "$.attempts[0].outcome" in invalid and "$.tags[0]" in invalid and "extra" in invalid

    assert results["secret"].is_error
    assert "- next_step: aws-key (AKIA…)" in text(results["secret"])
    assert "AKIAIOSFODNN7EXAMPLE" not in text(results["secret"])

    assert not results["save"].is_error
    new_id = results["id"]
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", new_id)
    stored = verbs.pull(new_id)  # alice's: the tool pushed with her token
    assert stored["goal"] == example_packet()["goal"]

    assert not results["resume"].is_error
    assert text(results["resume"]) == render_resume(stored)

    assert [p["id"] for p in json.loads(text(results["ls"]))] == [new_id]  # the newest of two, by the limit
    assert json.loads(text(results["whoami"])) == token_identity(hub.url, hub.token())
    assert text(results["platform"]) == hub.url + "/"  # the Go client's `platform` tool: the dashboard

    assert results["missing"].is_error
    assert "not found" in text(results["missing"])


def test_signed_out_tells_the_agent_to_ask_the_person(config_dir):
    async def steps(client):
        return await client.call_tool("ls", {})

    result = run_session(config_dir, "http://127.0.0.1:9", steps)
    assert result.is_error
    assert "not signed in; ask the person to run `ltm auth http://127.0.0.1:9`" in text(result)


def test_whoami_signed_out_is_a_tool_error_that_says_how_to_sign_in(config_dir):
    async def steps(client):
        return await client.call_tool("whoami", {})

    result = run_session(config_dir, "http://127.0.0.1:9", steps)
    assert result.is_error
    assert text(result) == "not signed in; ask the person to run `ltm auth http://127.0.0.1:9`"


def test_requests_received_before_stdin_closes_are_all_answered(hub, config_dir):
    """`printf '<initialize>\\n<tools/list>\\n<tools/call>\\n' | ltm mcp`: every request gets its
    answer before the server exits, although stdin ends right after the last one."""
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "example", "arguments": {}}},
        {"jsonrpc": "2.0", "id": "four", "method": "tools/call", "params": {"name": "ls", "arguments": {}}},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "ltm", "mcp"],
        env=mcp_env(config_dir, hub.url),
        capture_output=True,
        timeout=60,
        input="".join(json.dumps(request) + "\n" for request in requests).encode(),
    )
    assert done.returncode == 0, done.stderr.decode()
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.decode().splitlines())}
    assert set(answers) == {1, 2, 3, "four"}, done.stderr.decode()
    assert "tools" in answers[2]["result"]
    assert json.loads(answers[3]["result"]["content"][0]["text"])["goal"] == example_packet()["goal"]
    assert json.loads(answers["four"]["result"]["content"][0]["text"]) == []


def test_thread_tool_and_resume_of_a_thread(hub, config_dir, tmp_path):
    first, second = two_packet_thread()
    for body in (first, second):
        assert main(["push", write_packet(tmp_path, body, body["id"])]) == 0

    async def steps(client):
        return {
            "thread": await client.call_tool("thread", {"id": second["id"]}),
            "resume": await client.call_tool("resume", {"id": first["id"], "thread": True}),
            "missing": await client.call_tool("thread", {"id": "01HV0000000000000000000000"}),
        }

    results = run_session(config_dir, hub.url, steps)
    assert not results["thread"].is_error
    assert [item["id"] for item in json.loads(text(results["thread"]))] == [first["id"], second["id"]]
    assert text(results["resume"]) == render_resume(second, [first])
    assert "Polling" in text(results["resume"])
    assert results["missing"].is_error and "not found" in text(results["missing"])
