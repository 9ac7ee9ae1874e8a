"""Each hot JSON answer is what the serializer that describes it in the OpenAPI document would
write: byte for byte, but for how a number is spelt (json_answer's orjson writes a search score's
exponent as e-6 where DRF's renderer writes e-06: the same number to every JSON reader).

For speed, the packet list and search write their JSON directly (core.api.json_answer, search
through packets.search.selectors.Hit.result) and the pull serves the stored text; the thread and the
events go through their serializer today. Each answer is compared with the serializer's rendering
of the same data, read on another path where the view reads plain SQL (the ORM), for a packet with
every optional field set and one with only the required ones, each personal and in a team.
"""

import copy
import json
import re
from urllib.parse import urlencode

import pytest
from django.test import Client
from jsonschema import Draft202012Validator, FormatChecker
from rest_framework.renderers import JSONRenderer

from ltm.protocol.packet import canonical_json, example_packet, schema
from packets.models import Packet
from packets.search.selectors import search_packets
from packets.search.serializers import SearchResultsSerializer
from packets.serializers import PacketListSerializer, PushedSerializer, ThreadSerializer
from teams.models import TeamEvent
from teams.serializers import TeamEventListSerializer
from teams.testing import make_team

pytestmark = pytest.mark.django_db

# (method, path, status) -> the serializer whose component the description gives that answer.
DESCRIBED_BY = {
    ("post", "/v1/packets", "201"): PushedSerializer,
    ("get", "/v1/packets", "200"): PacketListSerializer,
    ("get", "/v1/search", "200"): SearchResultsSerializer,
    ("get", "/v1/packets/{packet_id}/thread", "200"): ThreadSerializer,
    ("get", "/v1/teams/{name}/events", "200"): TeamEventListSerializer,
}


def full_packet(packet_id: str, parent_id: str) -> dict:
    """Every field the v0.2 schema has, with text beyond ASCII and an instant with an offset
    and microseconds (the list and search answer it in UTC)."""
    packet = copy.deepcopy(example_packet())
    packet.update(
        id=packet_id,
        parent_id=parent_id,
        created_at="2026-04-18T22:41:03.123456+02:00",
        goal='Heron: make the importer idempotent — café ☕, "quoted" and a \\ backslash',
    )
    packet["provenance"]["source_hash"] = "sha256:" + "0" * 64
    assert set(packet) == set(schema("0.2")["properties"])
    return packet


def minimal_packet(packet_id: str) -> dict:
    packet = {
        "ltm_version": "0.2",
        "id": packet_id,
        "created_at": "2026-04-17T08:00:00Z",
        "goal": "heron, the minimum",
        "next_step": "n",
    }
    assert set(packet) == set(schema("0.2")["required"])
    return packet


@pytest.fixture
def world(api_as, alice, bob):
    """alice's four packets (minimum then full, which continues it; personal, and in alpha, a team
    of alice and bob), the full personal one published."""
    make_team(alice, "alpha", members=[bob])
    api = api_as(alice)
    packets = {}
    for scope, query in (("personal", ""), ("team", "?team=alpha")):
        minimal = minimal_packet(f"01MINIMAL{scope.upper():0<17}")
        full = full_packet(f"01FULL{scope.upper():0<20}", parent_id=minimal["id"])
        for packet in (minimal, full):
            response = api.post(f"/v1/packets{query}", packet)
            assert response.status_code == 201, response.content
            assert response.content == rendered(PushedSerializer({"id": packet["id"]}))
        packets[scope] = {"minimal": minimal, "full": full}
    assert api.post(f"/v1/packets/{packets['personal']['full']['id']}/publish").status_code in (200, 201)
    return api, packets


def rendered(serializer) -> bytes:
    """What a DRF view answering `serializer.data` sends."""
    return JSONRenderer().render(serializer.data)


def spelt_alike(sent: bytes, expected: bytes) -> bool:
    """The same bytes but for how numbers are spelt, and the same numbers once read."""
    number = rb"-?[0-9][0-9.eE+-]*(?=[,}\]])"
    return re.sub(number, b"0", sent) == re.sub(number, b"0", expected) and json.loads(sent) == json.loads(expected)


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        return Client().get("/v1/openapi.json").json()


def test_the_serializers_compared_are_those_the_description_uses(document):
    for (method, path, status), serializer in DESCRIBED_BY.items():
        answer = document["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
        assert answer == {"$ref": f"#/components/schemas/{serializer.__name__.removesuffix('Serializer')}"}


@pytest.mark.parametrize("team", [None, "alpha"])
def test_the_list(world, team):
    api, _ = world
    response = api.get("/v1/packets" + (f"?team={team}" if team else ""))
    rows = Packet.objects.filter(team__name=team) if team else Packet.objects.filter(team=None)
    expected = PacketListSerializer({"packets": rows.order_by("-created_at", "-id")})
    assert len(expected.data["packets"]) == 2
    assert (response.status_code, response["Content-Type"]) == (200, "application/json")
    assert response.content == rendered(expected)


@pytest.mark.parametrize("scope", ["personal", "team"])
@pytest.mark.parametrize("kind", ["minimal", "full"])
def test_the_pull(world, document, scope, kind):
    """The pull's serializer (PacketSerializer) is the protocol's schemas: the body is the packet,
    canonical, and valid against what the description says of it."""
    api, packets = world
    packet = packets[scope][kind]
    response = api.get(f"/v1/packets/{packet['id']}")
    assert response.content == canonical_json(packet).encode()
    described = document["paths"]["/v1/packets/{packet_id}"]["get"]["responses"]["200"]
    validator = Draft202012Validator(
        {**described["content"]["application/json"]["schema"], "components": document["components"]},
        format_checker=FormatChecker(),
    )
    assert not [error.message for error in validator.iter_errors(json.loads(response.content))]
    published = scope == "personal" and kind == "full"
    assert set(described["headers"]) == {"X-LTM-Published-At", "X-LTM-Public-URL"}
    assert all(response.has_header(header) == published for header in described["headers"])


@pytest.mark.parametrize("team", [None, "alpha"])
def test_search(world, alice, team):
    api, packets = world
    # Words in every goal; a packet's id, which puts it first with a score of 1. By words alone, so
    # that what is found is exactly the packets that say them (meaning would add their neighbours).
    for text, found in (("heron", 2 if team else 4), (packets["team"]["full"]["id"], 1)):
        query = {"q": text, "mode": "keyword", **({"team": team} if team else {})}
        response = api.get("/v1/search?" + urlencode(query))
        hits = search_packets(viewer=alice, text=text, team_name=team, mode="keyword")
        expected = SearchResultsSerializer({"results": hits})
        assert len(expected.data["results"]) == found
        assert (response.status_code, response["Content-Type"]) == (200, "application/json")
        assert spelt_alike(response.content, rendered(expected))


def test_search_by_someone_a_packet_was_shared_with(world, api_as, carol):
    """Results carry `shared_by` (the sender's name for a packet shared with the caller, null for
    the caller's own), as the serializer writes it."""
    api, packets = world
    shared = packets["personal"]["full"]["id"]
    assert api.post(f"/v1/packets/{shared}/shares", {"to": "carol"}).status_code == 201
    own = minimal_packet("01CAROLSOWN000000000000000")
    assert api_as(carol).post("/v1/packets", own).status_code == 201
    response = api_as(carol).get("/v1/search?q=heron")
    hits = search_packets(viewer=carol, text="heron")
    expected = SearchResultsSerializer({"results": hits})
    assert {hit["id"]: hit["shared_by"] for hit in expected.data["results"]} == {shared: "alice", own["id"]: None}
    assert (response.status_code, response["Content-Type"]) == (200, "application/json")
    assert spelt_alike(response.content, rendered(expected))


@pytest.mark.parametrize("scope", ["personal", "team"])
def test_the_thread(world, scope):
    api, packets = world
    ids = [packets[scope]["minimal"]["id"], packets[scope]["full"]["id"]]
    items = [
        {
            "id": row.id,
            "parent_id": row.parent_id or None,
            "created_at": row.created_at,
            "goal": row.goal,
            "team": row.team.name if row.team else None,
        }
        for row in Packet.objects.filter(id__in=ids).select_related("team").order_by("created_at", "id")
    ]
    assert [item["id"] for item in items] == ids
    for packet_id in ids:
        response = api.get(f"/v1/packets/{packet_id}/thread")
        assert response.content == rendered(ThreadSerializer({"packets": items}))


@pytest.mark.parametrize("limit", [None, 1])
def test_the_events(world, limit):
    api, _ = world
    response = api.get("/v1/teams/alpha/events" + (f"?limit={limit}" if limit else ""))
    events = list(TeamEvent.objects.filter(team__name="alpha").order_by("-id"))
    assert {event.kind for event in events} >= {TeamEvent.PACKET_PUSHED}
    page = events[: limit or 50]
    next_before = page[-1].id if len(events) > len(page) else None
    assert (next_before is not None) == (limit == 1)
    assert response.content == rendered(TeamEventListSerializer({"events": page, "next_before": next_before}))
