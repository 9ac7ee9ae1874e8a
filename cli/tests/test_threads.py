"""`ltm thread` and `ltm resume --thread` against the real hub: a packet's chain of parents and
children, oldest first, and the resume block that carries the earlier packets in."""

import json

from cli.testing.command_line import out_of, run
from ltm.protocol.resume import render_resume


def test_thread_prints_the_chain_oldest_first(hub, chain, capsys):
    lines = out_of(capsys, ["thread", chain[1]["id"]]).splitlines()
    assert lines[0].split() == ["ID", "CREATED", "TEAM", "GOAL"]
    assert [line.split()[0] for line in lines[1:]] == [chain[0]["id"], "*" + chain[1]["id"], chain[2]["id"]]
    assert hub.last("GET", "/v1/packets/").path == f"/v1/packets/{chain[1]['id']}/thread"


def test_thread_json_is_the_hubs_answer(hub, chain, capsys):
    data = json.loads(out_of(capsys, ["thread", "--json", chain[0]["id"]]))
    assert [item["id"] for item in data["packets"]] == [body["id"] for body in chain]
    assert data["packets"][0]["parent_id"] is None
    assert data["packets"][1] == {
        "id": chain[1]["id"],
        "parent_id": chain[0]["id"],
        "created_at": chain[1]["created_at"],
        "goal": "goal 2",
        "team": None,
    }


def test_thread_of_an_unknown_packet_says_so(hub, capsys):
    assert "not found" in run(capsys, ["thread", "01NOSUCHPACKET000000000000"], code=1).err


def test_resume_thread_renders_the_newest_with_its_ancestors_carried_in(hub, chain, capsys):
    out = out_of(capsys, ["resume", chain[0]["id"], "--thread"])
    assert out == render_resume(chain[2], [chain[0], chain[1]])
    assert "Keep SQLite" in out and "A cache" in out
    assert f"From earlier packet: {chain[0]['id']}" in out
    assert out.index("## Locked decisions") < out.index("## Your first action")


def test_a_thread_shows_only_what_the_person_may_read(hub, chain, capsys):
    hub.as_user("bob")
    assert "not found" in run(capsys, ["thread", chain[1]["id"]], code=1).err
