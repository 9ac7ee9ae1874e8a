"""The packets wire API as the ltm client uses it: push, list, pull, delete."""

import json

import pytest

from ltm.protocol.packet import MAX_PACKET_BYTES
from packets.models import Packet
from packets.testing import packet_v01, packet_v02, seed_packets

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(api_as, alice):
    return api_as(alice)


def test_healthz_needs_no_token(anon_api, settings):
    response = anon_api.get("/v1/healthz")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "version": "0.2", "hub": settings.LTM_VERSION}


@pytest.mark.parametrize("make_packet", [packet_v01, packet_v02])
def test_push_then_pull_returns_the_same_packet(api, make_packet):
    packet = make_packet()
    response = api.post("/v1/packets", packet)
    assert response.status_code == 201
    assert response.json() == {"id": packet["id"]}

    pulled = api.get(f"/v1/packets/{packet['id']}")
    assert pulled.status_code == 200
    assert pulled["Content-Type"].startswith("application/json")
    assert json.loads(pulled.content) == packet


def test_pull_is_canonical_json(api):
    packet = packet_v02()
    api.post("/v1/packets", packet)
    body = api.get(f"/v1/packets/{packet['id']}").content.decode()
    assert body == json.dumps(packet, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_list_is_newest_first_with_id_created_at_goal(api):
    old = packet_v02(created_at="2026-01-01T00:00:00Z", goal="old")
    new = packet_v02(created_at="2026-03-01T10:00:00+02:00", goal="new")
    api.post("/v1/packets", old)
    api.post("/v1/packets", new)
    body = api.get("/v1/packets").json()
    assert body == {
        "packets": [
            {"id": new["id"], "created_at": "2026-03-01T08:00:00Z", "goal": "new"},
            {"id": old["id"], "created_at": "2026-01-01T00:00:00Z", "goal": "old"},
        ]
    }


@pytest.mark.parametrize(
    ("limit", "expected"),
    [("2", 2), ("abc", 50), ("0", 50), ("-1", 50), ("501", 50), ("500", 60)],
)
def test_list_limit_and_its_fallback(api, alice, limit, expected):
    seed_packets(alice, 60)  # more than the fallback of 50, so the fallback shows
    assert len(api.get(f"/v1/packets?limit={limit}").json()["packets"]) == expected


def test_list_default_limit_is_50(api, alice):
    seed_packets(alice, 60)
    assert len(api.get("/v1/packets").json()["packets"]) == 50
    assert len(api.get("/v1/packets?limit=55").json()["packets"]) == 55


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        ("%2B7", 7),  # a sign, as strconv.Atoi reads it
        ("0007", 7),
        ("0" * 40 + "12", 12),  # leading zeros are digits like any other
        ("-0", 50),
        ("%EF%BC%95", 50),  # a fullwidth 5: int() would take it
        ("7%0A", 50),  # a trailing newline
        ("9" * 30, 50),
        ("7&limit=x", 50),  # of a repeated parameter, the last counts
        ("x&limit=7", 7),
    ],
)
def test_the_list_reads_a_limit_as_go_reads_a_number(api, alice, limit, expected):
    seed_packets(alice, 60)
    assert len(api.get(f"/v1/packets?limit={limit}").json()["packets"]) == expected


def test_an_empty_team_parameter_means_no_team(api):
    packet = packet_v02()
    assert api.post("/v1/packets?team=", packet).status_code == 201
    assert Packet.objects.get(id=packet["id"]).team is None
    assert [p["id"] for p in api.get("/v1/packets?team=&limit=").json()["packets"]] == [packet["id"]]


def test_delete_then_pull_is_404_and_push_again_is_201(api):
    packet = packet_v02()
    api.post("/v1/packets", packet)
    assert api.delete(f"/v1/packets/{packet['id']}").status_code == 204
    response = api.get(f"/v1/packets/{packet['id']}")
    assert response.status_code == 404
    assert response.json() == {"error": "packet not found"}
    assert api.post("/v1/packets", packet).status_code == 201


def test_repush_by_owner_replaces_without_duplicate(api):
    packet = packet_v02(goal="first version")
    api.post("/v1/packets", packet)
    packet["goal"] = "second version"
    packet["created_at"] = "2026-05-01T00:00:00Z"
    assert api.post("/v1/packets", packet).status_code == 201
    listed = api.get("/v1/packets").json()["packets"]
    assert [(p["id"], p["goal"]) for p in listed] == [(packet["id"], "second version")]
    assert api.get(f"/v1/packets/{packet['id']}").json()["goal"] == "second version"


def test_someone_elses_packet_is_404_everywhere(api_as, alice, bob):
    packet = packet_v02()
    api_as(alice).post("/v1/packets", packet)
    as_bob = api_as(bob)
    assert as_bob.get(f"/v1/packets/{packet['id']}").status_code == 404
    assert as_bob.delete(f"/v1/packets/{packet['id']}").status_code == 404
    assert as_bob.get("/v1/packets").json() == {"packets": []}
    assert Packet.objects.filter(pk=packet["id"]).exists()


def test_push_of_someone_elses_id_is_409_and_changes_nothing(api_as, alice, bob):
    packet = packet_v02(goal="alice's secret goal")
    api_as(alice).post("/v1/packets", packet)
    response = api_as(bob).post("/v1/packets", dict(packet, goal="bob overwrites"))
    assert response.status_code == 409
    assert "alice" not in response.content.decode()
    assert "secret" not in response.content.decode()
    assert response.json() == {
        "error": f"packet id {packet['id']} is already taken on this hub; give your packet a new id"
    }
    stored = Packet.objects.get(pk=packet["id"])
    assert (stored.owner_id, stored.goal) == (alice.pk, "alice's secret goal")


def test_missing_bearer_is_401(anon_api):
    response = anon_api.get("/v1/packets")
    assert response.status_code == 401
    assert response.json() == {"error": "missing bearer token"}


def test_unknown_or_revoked_token_is_401(api, alice):
    from accounts.services import api_token_revoke

    unknown = api.__class__("ltm_not-a-real-token")
    assert unknown.get("/v1/packets").status_code == 401
    assert unknown.get("/v1/packets").json() == {"error": "invalid token"}
    token = alice.api_tokens.get()
    api_token_revoke(actor=alice, token_id=token.pk)
    assert api.get("/v1/packets").json() == {"error": "invalid token"}


def _push_raw(api, raw: bytes):
    return api.post("/v1/packets", raw=raw)


@pytest.mark.parametrize(
    ("raw", "message_part"),
    [
        (b"not json", "invalid JSON"),
        (b"", "empty body"),
        (b"[1, 2]", "must be a JSON object, not an array"),
        (b'{"id": "01ABCDEFGHJK"}', "missing required field 'ltm_version'"),
        (b'{"ltm_version": "9.9"}', 'unsupported ltm_version "9.9" (supported: 0.1, 0.2)'),
        (b'{"ltm_version": "0.2", "id": NaN}', "NaN is not allowed"),
        (b"\xff\xfe{}", "not valid UTF-8"),
    ],
)
def test_bad_bodies_are_400_with_a_message(api, raw, message_part):
    response = _push_raw(api, raw)
    assert response.status_code == 400
    assert message_part in response.json()["error"]


def test_field_over_max_length_names_its_path(api):
    response = api.post("/v1/packets", packet_v02(goal="x" * 1025))
    assert response.status_code == 400
    assert "$.goal" in response.json()["error"]
    assert "too long" in response.json()["error"]


def test_nested_violation_names_its_path(api):
    packet = packet_v02()
    packet["decisions"][1]["why"] = 42
    response = api.post("/v1/packets", packet)
    assert response.status_code == 400
    assert "$.decisions[1].why" in response.json()["error"]


def test_unknown_field_is_rejected(api):
    response = api.post("/v1/packets", packet_v02(scope="team"))
    assert response.status_code == 400
    assert "'scope' was unexpected" in response.json()["error"]


def test_v02_field_in_v01_packet_is_rejected(api):
    response = api.post("/v1/packets", packet_v01(parent_id="01PARENTPACKET0001"))
    assert response.status_code == 400
    assert "parent_id" in response.json()["error"]


@pytest.mark.parametrize("created_at", ["yesterday", "2026-13-01T00:00:00Z", "2026-04-18T22:41:03", "2026-04-18"])
def test_created_at_must_be_rfc3339(api, created_at):
    response = api.post("/v1/packets", packet_v02(created_at=created_at))
    assert response.status_code == 400
    assert "$.created_at" in response.json()["error"]


def test_body_over_32_kib_is_400_and_one_under_passes(api):
    packet = packet_v02()
    base = len(json.dumps(packet).encode())
    packet["constraints"] = []
    # Fill up to exactly the cap with whitespace padding after the JSON value.
    encoded = json.dumps(packet).encode()
    at_cap = encoded + b" " * (MAX_PACKET_BYTES - len(encoded))
    assert len(at_cap) == MAX_PACKET_BYTES and base < MAX_PACKET_BYTES
    assert _push_raw(api, at_cap).status_code == 201

    over = encoded + b" " * (MAX_PACKET_BYTES + 1 - len(encoded))
    response = _push_raw(api, over)
    assert response.status_code == 400
    assert response.json()["error"] == "packet is 32769 bytes; the maximum is 32768 bytes (32 KiB)"


def test_huge_body_is_refused_before_parsing(api):
    response = _push_raw(api, b"{" * (3 * 1024 * 1024))
    assert response.status_code == 400
    assert "maximum is 32768 bytes" in response.json()["error"]


def test_odd_ids_in_the_path_are_404_not_500(api):
    for odd in ["..%2F..%2Fetc", "x" * 300, "%F0%9F%92%A9", "%E2%80%AE"]:
        response = api.get(f"/v1/packets/{odd}")
        assert response.status_code == 404, odd
        assert response.json() == {"error": "packet not found"}, odd


@pytest.mark.parametrize("path", ["/v1/packets/abc%00def", "/v1/packets?team=al%00pha", "/v1/packets?limit=%00"])
def test_nul_in_the_url_is_400(api, path):
    response = api.get(path)
    assert response.status_code == 400
    assert response.json() == {"error": "NUL characters (\\u0000) are not allowed"}


def test_nul_in_packet_text_is_400_and_nothing_is_stored(api):
    packet = packet_v02(goal="before\u0000after")
    response = api.post("/v1/packets", packet)
    assert response.status_code == 400
    assert response.json() == {"error": "NUL characters (\\u0000) are not allowed"}
    assert not Packet.objects.filter(pk=packet["id"]).exists()


def test_unknown_v1_path_is_json_404(api):
    response = api.get("/v1/nope")
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}


def test_packet_columns_are_stored(api, alice):
    packet = packet_v02(parent_id="01PARENTPACKET0001", tags=["docs", "demo"])
    api.post("/v1/packets", packet)
    stored = Packet.objects.get(pk=packet["id"])
    assert stored.owner == alice
    assert stored.team is None
    assert stored.parent_id == "01PARENTPACKET0001"
    assert stored.goal == packet["goal"]
    assert stored.tag_list == ["docs", "demo"]
