"""Bodies a hostile or broken client may send to any /v1 endpoint: each gets a 400 that says what
was wrong, writes nothing and spends nothing. (Before the one JSON reader, each was a 500.)"""

import json

import pytest

from ltm.protocol.packet import parse_timestamp
from packets.models import Packet
from packets.testing import packet_v02
from teams.models import Invite, Team
from teams.testing import make_invite, make_team


@pytest.fixture
def api(api_as, alice):
    return api_as(alice)


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def raw_post(client, path, raw: str):
    return client.post(path, raw=raw.encode("utf-8"))


def packet_text(**fields) -> str:
    return json.dumps(packet_v02(**fields))


# 1. Deep JSON: the interpreter's stack is no longer the limit.


@pytest.mark.parametrize("levels", [33, 400, 950, 5000])
def test_deep_json_is_a_400_on_teams(api, levels):
    response = raw_post(api, "/v1/teams", '{"name": ' + nested(levels) + "}")
    assert response.status_code == 400
    assert response.json() == {"error": "invalid JSON: nested more than 32 levels deep"}
    assert not Team.objects.exists()


@pytest.mark.parametrize("levels", [400, 5000])
def test_deep_json_on_an_anonymous_accept_is_a_400_and_keeps_the_invite(anon_api, alice, levels):
    team = make_team(alice)
    invite, code = make_invite(team)

    response = raw_post(anon_api, f"/v1/invites/{code}/accept", '{"display": ' + nested(levels) + "}")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid JSON: nested more than 32 levels deep"
    invite.refresh_from_db()
    assert invite.is_usable()


@pytest.mark.parametrize("levels", [40, 950, 5000])
def test_deep_json_in_a_packet_is_a_400(api, levels):
    body = packet_text()[:-1] + ', "x_deep": ' + nested(levels) + "}"
    response = raw_post(api, "/v1/packets", body)
    assert response.status_code == 400
    assert response.json() == {"error": "invalid JSON: nested more than 32 levels deep"}
    assert not Packet.objects.exists()


# 2. Lone surrogates: not text, so no database can store them.


@pytest.mark.parametrize("field", ["goal", "next_step", "id"])
def test_a_lone_surrogate_in_a_packet_string_is_a_400(api, field):
    packet = packet_v02()
    packet[field] = packet[field][:12] + "\ud800" + packet[field][12:]
    body = json.dumps(packet)  # ascii: the surrogate travels as the escape \ud800
    assert "\\ud800" in body

    response = raw_post(api, "/v1/packets", body)

    assert response.status_code == 400
    assert "lone UTF-16 surrogate" in response.json()["error"]
    assert not Packet.objects.exists()


def test_a_lone_surrogate_in_a_key_is_a_400(api):
    response = raw_post(api, "/v1/packets", packet_text()[:-1] + ', "x\\udfff": 1}')
    assert response.status_code == 400
    assert "lone UTF-16 surrogate" in response.json()["error"]


def test_a_lone_surrogate_in_display_on_an_anonymous_accept_is_a_400_and_keeps_the_invite(anon_api, alice):
    team = make_team(alice)
    invite, code = make_invite(team)

    response = raw_post(anon_api, f"/v1/invites/{code}/accept", '{"display": "Ada\\ud800"}')

    assert response.status_code == 400
    assert "lone UTF-16 surrogate" in response.json()["error"]
    invite.refresh_from_db()
    assert invite.is_usable()
    assert Invite.objects.get().used_by is None


def test_a_surrogate_pair_is_text_and_is_kept(api):
    packet = packet_v02(goal="Ship the \U0001f680 launcher")
    response = raw_post(api, "/v1/packets", json.dumps(packet))  # \ud83d\ude80 on the wire
    assert response.status_code == 201
    assert json.loads(api.get(f"/v1/packets/{packet['id']}").content)["goal"] == packet["goal"]


# 3. Numbers Python cannot or should not turn into values.


@pytest.mark.parametrize(
    "literal, message",
    [
        ("9" * 5000, "a number has more than 100 digits"),
        ("1" + "0" * 200, "a number has more than 100 digits"),
        ("0." + "1" * 200, "a number has more than 100 digits"),
        ("1e999", "the number 1e999 is too large"),
        ("NaN", "NaN is not allowed"),
        ("-Infinity", "-Infinity is not allowed"),
    ],
)
def test_numbers_beyond_the_limits_are_a_400_anywhere_in_a_packet(api, literal, message):
    packet = packet_v02()
    body = json.dumps(packet).replace('"created_at"', f'"x_number": [{literal}], "created_at"', 1)

    response = raw_post(api, "/v1/packets", body)

    assert response.status_code == 400
    assert response.json() == {"error": f"invalid JSON: {message}"}


def test_a_huge_number_in_a_team_body_is_a_400(api):
    response = raw_post(api, "/v1/teams", '{"name": ' + "9" * 5000 + "}")
    assert response.status_code == 400
    assert response.json() == {"error": "invalid JSON: a number has more than 100 digits"}


# 4. Offsets PostgreSQL refuses: the instant is stored in UTC, the packet keeps its text.


@pytest.mark.parametrize(
    "created_at", ["2026-01-01T00:00:00+16:00", "2026-01-01T00:00:00-23:59", "2026-06-30T12:00:00+15:59"]
)
def test_any_offset_rfc3339_allows_is_stored_as_its_instant(api, created_at):
    packet = packet_v02(created_at=created_at)

    response = api.post("/v1/packets", packet)

    assert response.status_code == 201
    stored = Packet.objects.get(pk=packet["id"])
    assert stored.created_at == parse_timestamp(created_at)
    assert json.loads(api.get(f"/v1/packets/{packet['id']}").content)["created_at"] == created_at
