"""GET /v1/export: everything the caller may read (or one team's), streamed as JSON lines or one
markdown document."""

import json

import pytest

from packets.export import selectors as export_selectors
from packets.models import Packet
from packets.testing import packet_v02, push_packet, store_directly
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def body_of(response) -> str:
    assert response.status_code == 200, response.content
    assert response.streaming
    return b"".join(response.streaming_content).decode("utf-8")


def lines_of(response) -> list[dict]:
    return [json.loads(line) for line in body_of(response).splitlines()]


@pytest.fixture
def world(alice, bob, carol):
    """alice: two personal packets; team alpha (alice, bob) with bob's packet; carol's own packet;
    team beta (carol only)."""
    alpha = make_team(alice, "alpha", members=[bob])
    beta = make_team(carol, "beta")
    return {
        "mine": [
            push_packet(alice, created_at="2026-01-01T00:00:00Z"),
            push_packet(alice, created_at="2026-01-03T00:00:00Z"),
        ],
        "alpha": push_packet(bob, team=alpha, created_at="2026-01-02T00:00:00Z"),
        "bob_own": push_packet(bob),
        "carol": push_packet(carol),
        "beta": push_packet(carol, team=beta),
    }


def test_jsonl_is_every_readable_packet_each_as_pull_returns_it(api_as, alice, world):
    api = api_as(alice)
    response = api.get("/v1/export?format=jsonl")
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert "attachment" in response["Content-Disposition"]
    assert response["X-LTM-Export-Count"] == "3"
    packets = lines_of(response)
    expected = [world["mine"][0], world["alpha"], world["mine"][1]]
    assert [p["id"] for p in packets] == [p.id for p in expected]
    for packet in packets:
        assert packet == json.loads(api.get(f"/v1/packets/{packet['id']}").content)


def test_jsonl_is_the_default_format(api_as, alice, world):
    assert len(lines_of(api_as(alice).get("/v1/export"))) == 3


def test_team_export_is_only_that_teams(api_as, bob, world):
    response = api_as(bob).get("/v1/export?format=jsonl&team=alpha")
    assert response["X-LTM-Export-Count"] == "1"
    assert [p["id"] for p in lines_of(response)] == [world["alpha"].id]


def test_a_team_the_caller_is_not_in_is_404(api_as, alice, world):
    for team in ("beta", "nosuchteam"):
        response = api_as(alice).get(f"/v1/export?team={team}")
        assert response.status_code == 404
        assert response.json() == {"error": "team not found"}


@pytest.mark.parametrize("format", ["xml", "JSONL", "md", " "])
def test_a_bad_format_is_400(api_as, alice, format):
    response = api_as(alice).get(f"/v1/export?format={format}")
    assert response.status_code == 400
    assert "format must be one of jsonl, markdown" in response.json()["error"]


def test_needs_a_bearer(anon_api):
    assert anon_api.get("/v1/export").status_code == 401


def test_nothing_to_export_is_an_empty_body(api_as, alice):
    response = api_as(alice).get("/v1/export")
    assert response["X-LTM-Export-Count"] == "0"
    assert body_of(response) == ""


def test_markdown_is_one_document_with_threads_together(api_as, alice):
    root = push_packet(alice, created_at="2026-01-01T00:00:00Z", goal="Root of a thread")
    other = push_packet(alice, created_at="2026-01-02T00:00:00Z", goal="Unrelated work")
    push_packet(alice, created_at="2026-01-03T00:00:00Z", goal="Continue the thread", parent_id=root.id)
    response = api_as(alice).get("/v1/export?format=markdown")
    assert response["Content-Type"].startswith("text/markdown")
    text = body_of(response)
    assert text.startswith("# ltm export\n")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## Root of a thread", "## Continue the thread", "## Unrelated work"]
    assert f"- Continues: `{root.id}`" in text
    assert f"- Packet: `{other.id}`" in text
    assert "### Next step" in text and "### Locked decisions" in text


def test_jsonl_keeps_threads_together_too(api_as, alice):
    root = push_packet(alice, created_at="2026-01-01T00:00:00Z")
    other = push_packet(alice, created_at="2026-01-02T00:00:00Z")
    child = push_packet(alice, created_at="2026-01-03T00:00:00Z", parent_id=root.id)
    assert [p["id"] for p in lines_of(api_as(alice).get("/v1/export"))] == [root.id, child.id, other.id]


def test_cycles_and_missing_parents_are_exported_once(api_as, alice):
    orphan = push_packet(alice, created_at="2026-01-05T00:00:00Z", parent_id="01NOSUCHPACKET000000000000")
    a, b = packet_v02(created_at="2026-01-01T00:00:00Z"), packet_v02(created_at="2026-01-02T00:00:00Z")
    store_directly(alice, a)
    store_directly(alice, b)
    Packet.objects.filter(pk=a["id"]).update(parent_id=b["id"])
    Packet.objects.filter(pk=b["id"]).update(parent_id=a["id"])
    ids = [p["id"] for p in lines_of(api_as(alice).get("/v1/export"))]
    assert ids == [orphan.id, a["id"], b["id"]]


def test_a_thread_through_an_unreadable_packet_splits_in_two(api_as, alice, bob):
    alpha = make_team(alice, "alpha", members=[bob])
    first = push_packet(alice, team=alpha, created_at="2026-01-01T00:00:00Z")
    private = push_packet(alice, created_at="2026-01-02T00:00:00Z", parent_id=first.id)
    later = push_packet(alice, team=alpha, created_at="2026-01-03T00:00:00Z", parent_id=private.id)
    assert [p["id"] for p in lines_of(api_as(bob).get("/v1/export"))] == [first.id, later.id]
    team_only = lines_of(api_as(alice).get("/v1/export?team=alpha"))
    assert [p["id"] for p in team_only] == [first.id, later.id]


def test_batches_cover_everything_once(alice):
    """Packets read a few ids at a time: each comes out once, threads together, cycles last."""
    starts = [push_packet(alice, created_at="2026-01-01T00:00:00Z") for _ in range(7)]
    children = [push_packet(alice, created_at="2026-01-02T00:00:00Z", parent_id=s.id) for s in starts[:3]]
    looped = [push_packet(alice, created_at="2026-01-03T00:00:00Z") for _ in range(5)]
    for packet, parent in zip(looped, looped[1:] + looped[:1]):  # one cycle of five
        Packet.objects.filter(pk=packet.id).update(parent_id=parent.id)
    rows = list(export_selectors.packets_for_export(viewer=alice, batch=2))
    assert sorted(row.id for row in rows) == sorted(p.id for p in starts + children + looped)
    assert len(rows) == 15
    assert {row.id for row in rows[-5:]} == {p.id for p in looped}


def test_jsonl_lines_keep_line_breaks_and_spaces_inside_text(api_as, alice):
    text = 'first line\n    indented second line\r\n  "quoted"\t{ "not": "json" }\n'
    packet = packet_v02(goal=text, next_step=" leading and trailing ", constraints=[text])
    api_as(alice).post("/v1/packets", packet)
    (line,) = body_of(api_as(alice).get("/v1/export")).splitlines()
    assert json.loads(line) == packet
