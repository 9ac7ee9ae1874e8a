"""A packet received from another hub is read here as a shared packet is, wherever one is read:
the recipient's search, thread, export and MCP tools find it; nobody here can change it; after a
withdraw it is gone from each of them. Hub B (a real process) signs what hub A (the suite's) takes."""

import json

import pytest

from federation.testing import share_message
from packets.testing import packet_v02, push_packet
from packets.testing.scoping import mcp
from packets.testing.search import found

WORD = "quokkaresume"  # a word no other packet of the test holds


@pytest.fixture
def received(send, hub_b, bob):
    """A packet carol on hub B shared with bob here, and bob's own follow-up continuing it."""
    packet = packet_v02(goal=f"Teach the {WORD} importer to resume.", created_at="2026-03-01T10:00:00Z")
    answer = send(share_message(hub_b, packet=packet))
    assert answer.status_code == 200, answer.content
    follow_up = push_packet(bob, goal="Bob goes on from there.", parent_id=packet["id"])
    return packet, follow_up


def withdraw(send, hub_b, packet) -> None:
    message = {"type": "withdraw", "id": f"gone-{packet['id']}", "from": f"carol@{hub_b.host}", "to": "bob"}
    assert send({**message, "packet_id": packet["id"]}).status_code == 200


def exported_ids(api) -> list[str]:
    response = api.get("/v1/export?format=jsonl")
    assert response.status_code == 200, response.content
    return [json.loads(line)["id"] for line in b"".join(response.streaming_content).decode().splitlines()]


def thread_ids(api, packet_id) -> list[str]:
    response = api.get(f"/v1/packets/{packet_id}/thread")
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["packets"]]


def test_search_thread_and_export_read_it_and_lose_it_after_a_withdraw(received, send, hub_b, api_as, bob, carol):
    packet, follow_up = received
    api = api_as(bob)
    [result] = api.get(f"/v1/search?q={WORD}&mode=keyword").json()["results"]
    assert (result["id"], result["shared_by"]) == (packet["id"], f"carol@{hub_b.host}")
    assert packet["id"] in found(api, WORD)  # hybrid, the default: by meaning too
    assert thread_ids(api, follow_up.id) == [packet["id"], follow_up.id]
    assert thread_ids(api, packet["id"]) == [packet["id"], follow_up.id]
    assert exported_ids(api) == [packet["id"], follow_up.id]
    # carol of this hub is not carol of hub B: nothing of it is hers to read.
    stranger = api_as(carol)
    assert packet["id"] not in found(stranger, WORD) and exported_ids(stranger) == []
    assert stranger.get(f"/v1/packets/{packet['id']}/thread").status_code == 404

    withdraw(send, hub_b, packet)
    assert found(api, WORD, mode="keyword") == [] and packet["id"] not in found(api, WORD)
    assert api.get(f"/v1/packets/{packet['id']}/thread").status_code == 404
    assert thread_ids(api, follow_up.id) == [follow_up.id]
    assert exported_ids(api) == [follow_up.id]


def test_nobody_here_can_change_it(received, api_as, bob, carol):
    packet, _ = received
    api = api_as(bob)
    pushed_over = api.post("/v1/packets", {**packet, "goal": "Bob's version."})
    assert pushed_over.status_code == 403 and "shared with you to read" in pushed_over.json()["error"]
    assert api.delete(f"/v1/packets/{packet['id']}").status_code == 403
    assert api.post(f"/v1/packets/{packet['id']}/publish").status_code == 403
    stranger = api_as(carol)
    assert stranger.post("/v1/packets", packet).status_code == 409  # an id held here: nothing more said
    assert stranger.delete(f"/v1/packets/{packet['id']}").status_code == 404
    assert api.get(f"/v1/packets/{packet['id']}").json() == packet


def test_the_mcp_tools_read_it_refuse_changes_and_lose_it_after_a_withdraw(
    received, send, hub_b, make_token, bob, carol
):
    packet, follow_up = received
    tool = mcp(make_token, bob)  # /mcp, as an agent calls it
    for name in ("show", "pull"):
        text, is_error = tool(name, id=packet["id"])
        assert not is_error and packet["goal"] in text, (name, text)
    text, is_error = tool("resume", id=packet["id"])
    assert not is_error and packet["next_step"] in text, text
    thread = json.loads(tool("thread", id=follow_up.id)[0])
    assert [item["id"] for item in thread] == [packet["id"], follow_up.id]
    [result] = json.loads(tool("search", q=WORD, mode="keyword")[0])
    assert (result["id"], result["shared_by"]) == (packet["id"], f"carol@{hub_b.host}")
    [item] = json.loads(tool("inbox")[0])
    assert (item["packet_id"], item["from"]["display"], item["seen"]) == (packet["id"], f"carol@{hub_b.host}", True)
    for name in ("rm", "publish"):
        text, is_error = tool(name, id=packet["id"])
        assert is_error and "packet" in text, (name, text)
    text, is_error = tool("save", packet={**packet, "goal": "Bob's version."})
    assert is_error and "shared with you to read" in text, text
    assert mcp(make_token, carol)("show", id=packet["id"]) == ("packet not found", True)

    withdraw(send, hub_b, packet)
    for name in ("show", "pull", "resume", "thread"):
        assert tool(name, id=packet["id"]) == ("packet not found", True), name
    assert json.loads(tool("search", q=WORD, mode="keyword")[0]) == []
    assert json.loads(tool("inbox")[0]) == []
