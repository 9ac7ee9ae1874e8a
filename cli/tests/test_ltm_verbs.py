"""The verbs the command line and the MCP server share, called directly against the real hub."""

import json

import pytest
from ulid import ULID

from cli.testing.stub import Stub
from ltm import verbs
from ltm.errors import LtmError, PacketRejected, RedactionRefused
from ltm.protocol.packet import example_packet, parse_timestamp, with_defaults
from ltm.protocol.tokens import token_identity


def raw(packet) -> bytes:
    return json.dumps(packet).encode("utf-8")


def test_example_has_a_fresh_ulid_and_time_and_the_protocols_content(config_dir):
    first, second = verbs.example(), verbs.example()
    assert first["id"] != second["id"] != example_packet()["id"]
    assert str(ULID.from_str(first["id"])) == first["id"]
    assert parse_timestamp(first["created_at"]) is not None
    fresh = {"id": None, "created_at": None, "provenance": None}
    assert {**first, **fresh} == {**example_packet(), **fresh}
    assert first["provenance"] == {**example_packet()["provenance"], "author_human": "example"}


def test_with_defaults_fills_only_what_is_missing():
    given = {"id": "01HV00000000000000000000A1", "created_at": "2026-04-22T09:30:00Z", "goal": "g"}
    assert with_defaults(given) == given
    filled = with_defaults({"goal": "g"})
    assert filled["goal"] == "g"
    assert str(ULID.from_str(filled["id"])) == filled["id"]
    assert parse_timestamp(filled["created_at"]) is not None


def test_push_returns_the_host_and_the_id(hub):
    packet = example_packet()
    pushed = verbs.push(raw(packet))
    assert (pushed.host, pushed.id, pushed.findings) == (hub.url, packet["id"], [])
    assert verbs.pull(packet["id"]) == packet


def test_push_of_an_invalid_packet_lists_every_error_and_sends_nothing(hub):
    packet = {**example_packet(), "tags": ["Bad Tag"], "extra": 1}
    with pytest.raises(PacketRejected) as rejected:
        verbs.push(raw(packet))
    assert any(detail.startswith("$.tags[0]") for detail in rejected.value.details)
    assert any("extra" in detail for detail in rejected.value.details)
    assert hub.sent == []


def test_push_refuses_secrets_unless_allowed(hub):
    packet = {**example_packet(), "goal": "deploy with AKIAIOSFODNN7EXAMPLE"}
    with pytest.raises(RedactionRefused) as refused:
        verbs.push(raw(packet))
    assert refused.value.details == ["goal: aws-key (AKIA…)"]
    assert verbs.push(raw(packet), allow_unredacted=True).id == packet["id"]


def test_hub_errors_split_only_before_a_json_path():
    message = "$.goal: too long; $.tags[0]: no; packet is 40000 bytes; the maximum is 32768 (and 2 more)"
    assert verbs.hub_errors(message) == [
        "$.goal: too long",
        "$.tags[0]: no; packet is 40000 bytes; the maximum is 32768",
        "... and 2 more (push without --lenient to list every error)",
    ]


def test_pull_returns_the_packet_as_served_even_when_show_refuses_it(config_dir, monkeypatch):
    """A hub that serves a packet with a field the schema does not know (no real hub stores one)."""
    packet = example_packet()
    served = json.dumps({**packet, "server_field": 1}).encode()
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    with Stub({("GET", f"/v1/packets/{packet['id']}"): (200, served, {})}) as stub:
        monkeypatch.setenv("LTM_HUB_URL", stub.url)
        assert verbs.pull(packet["id"])["server_field"] == 1
        with pytest.raises(LtmError, match="does not validate"):
            verbs.show(packet["id"])
        with pytest.raises(LtmError, match="does not validate"):
            verbs.resume(packet["id"])


def test_a_missing_packet_says_how_to_list_them(hub):
    with pytest.raises(LtmError, match=r"packet 01HV0000000000000000000000 not found on .*`ltm ls`"):
        verbs.resume("01HV0000000000000000000000")


def test_a_missing_team_says_how_to_list_teams(hub):
    with pytest.raises(LtmError, match=r"team 'nope' not found on .*`ltm teams ls`"):
        verbs.team_members("nope")


def test_connect_without_a_hub_or_a_token_says_what_to_run(config_dir, monkeypatch):
    with pytest.raises(LtmError, match=r"no hub configured; run `ltm auth <host>`"):
        verbs.connect()
    monkeypatch.setenv("LTM_HUB_URL", "hub.example.com")
    with pytest.raises(LtmError, match=r"not signed in; run `ltm auth https://hub.example.com`"):
        verbs.connect()


def test_whoami_and_dashboard_url(hub):
    assert verbs.whoami() == token_identity(hub.url, hub.token())
    assert verbs.dashboard_url() == hub.url + "/"


def test_whoami_and_dashboard_url_without_a_hub(config_dir):
    with pytest.raises(LtmError, match=r"not signed in; run `ltm auth <host>`"):
        verbs.whoami()
    with pytest.raises(LtmError, match="no hub configured"):
        verbs.dashboard_url()
