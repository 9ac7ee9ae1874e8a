"""ltm.protocol.tool_calls, the answers both MCP servers give, over a backend held in memory."""

import json

import pytest

from ltm.protocol import tool_calls, tools
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, check_packet, example_packet
from ltm.protocol.resume import render_resume, thread_lineage
from ltm.protocol.tokens import token_checksum, token_identity
from ltm.protocol.tool_calls import ToolError, checked


class Memory:
    """The few reads and writes the tools need, kept in a dict."""

    def __init__(self, *packets, findings=()):
        self.packets = {packet["id"]: packet for packet in packets}
        self.pushed = []
        self.findings = list(findings)  # what the hub's secret scan answers to each push

    def push(self, packet, team):
        self.pushed.append((packet, team))
        return "https://hub.example", packet["id"], self.findings

    def packet(self, packet_id):
        return self.packets[packet_id]

    def thread(self, packet_id):
        return [{"id": p["id"], "parent_id": p.get("parent_id")} for p in self.packets.values()]

    def search(self, q, team, limit, mode="hybrid"):
        return [{"q": q, "team": team, "limit": limit, "mode": mode}]


def call(backend, name, arguments=None):
    _, arguments = checked({**tools.TOOLS, **tools.LOCAL_TOOLS}, name, arguments)
    return tool_calls.answer(backend, name, arguments)


def test_every_declared_tool_has_one_answer():
    assert set(tool_calls.ANSWERS) == set(tools.TOOLS) | set(tools.LOCAL_TOOLS)


def test_checked_drops_nulls_fills_declared_defaults_and_refuses_the_rest():
    spec, arguments = checked(tools.TOOLS, "save", {"packet": {}, "team": None})
    assert spec.name == "save" and arguments == {"packet": {}, "allow_unredacted": False}
    with pytest.raises(ToolError, match="unknown tool 'push'; the tools are: save, "):
        checked(tools.TOOLS, "push", {})
    with pytest.raises(ToolError, match="invalid arguments for save:\n- arguments: 'packet' is a required") as refused:
        checked(tools.TOOLS, "save", {})
    assert tools.PACKET_SHAPE in str(refused.value)


def test_save_fills_in_id_and_time_and_pushes_the_packet_itself():
    backend = Memory()
    packet = {key: value for key, value in example_packet().items() if key not in ("id", "created_at")}
    text = call(backend, "save", {"packet": packet, "team": "alpha"})
    ((pushed, team),) = backend.pushed
    assert team == "alpha" and pushed["id"] and pushed["created_at"]
    assert text == (
        f"saved packet {pushed['id']} on https://hub.example in team alpha. "
        f"Resume it with the `resume` tool, id {pushed['id']!r}."
    )


def test_save_refuses_an_invalid_or_unredacted_packet_before_pushing():
    backend = Memory()
    with pytest.raises(ToolError, match=r"packet rejected with 1 error; fix all of them.*\n- \$: 'goal' is a required"):
        call(backend, "save", {"packet": {"ltm_version": "0.2", "next_step": "x"}})
    leaky = {**example_packet(), "goal": "fix /home/ada/project/build.sh"}
    with pytest.raises(ToolError, match="packet refused: it contains secrets or absolute paths"):
        call(backend, "save", {"packet": leaky})
    assert backend.pushed == []
    call(backend, "save", {"packet": leaky, "allow_unredacted": True})
    assert backend.pushed[0][0]["goal"] == leaky["goal"]


def test_save_passes_on_what_the_hubs_secret_scan_flagged_and_how_to_fix_it():
    findings = [{"path": "next_step", "kind": "aws-access-key"}, {"path": "decisions[0].why", "kind": "jwt"}]
    packet = example_packet()
    text = call(Memory(findings=findings), "save", {"packet": packet})
    saved, warning = text.split("\n", 1)
    assert (
        saved
        == f"saved packet {packet['id']} on https://hub.example. Resume it with the `resume` tool, id {packet['id']!r}."
    )
    assert warning == tools.flagged_message(packet["id"], findings)
    assert "- next_step: aws-access-key\n- decisions[0].why: jwt\n" in warning
    assert "cannot be published or shared" in warning
    assert f"call `save` again with the same id ({packet['id']!r})" in warning
    assert f"ltm findings clear {packet['id']} --reason" in warning


def test_a_refusal_of_the_hubs_secret_scan_names_the_findings():
    message = tools.secrets_refused_message([{"path": "goal", "kind": "github-token"}])
    assert message.startswith("packet refused by the hub: its secret scan found")
    assert "nothing was saved" in message and "allow_unredacted does not override" in message
    assert message.endswith("\n- goal: github-token")


def test_check_packet_holds_a_decoded_packet_to_the_size_cap():
    assert check_packet(example_packet()) == example_packet()
    with pytest.raises(PacketError, match=f"the maximum is {MAX_PACKET_BYTES} bytes"):
        check_packet({**example_packet(), "constraints": ["x" * 1000] * 33})
    with pytest.raises(PacketError, match="lone surrogate"):
        check_packet({**example_packet(), "goal": "\ud800"})


def test_resume_of_a_thread_carries_the_packets_it_continues():
    first = {**example_packet(), "id": "01TOOLCALLS000000000000001"}
    second = {**example_packet(), "id": "01TOOLCALLS000000000000002", "parent_id": first["id"], "goal": "later"}
    backend = Memory(first, second)
    assert thread_lineage(backend.thread(first["id"])) == (second["id"], [first["id"]])
    assert call(backend, "resume", {"id": first["id"], "thread": True}) == render_resume(second, [first])
    assert call(backend, "resume", {"id": first["id"]}) == render_resume(first)


def test_search_refuses_blank_words_and_lists_what_the_backend_finds():
    with pytest.raises(ToolError, match="q is required"):
        call(Memory(), "search", {"q": "  "})
    assert json.loads(call(Memory(), "search", {"q": "flaky", "limit": 3})) == [
        {"q": "flaky", "team": None, "limit": 3, "mode": "hybrid"}
    ]
    assert json.loads(call(Memory(), "search", {"q": "flaky", "mode": "semantic"}))[0]["mode"] == "semantic"


def test_whoami_names_the_token_by_its_hint_on_every_surface():
    assert token_identity("https://hub.example", "secret") == {
        "host": "https://hub.example",
        "token_hash8": token_checksum("secret")[:8],
    }
