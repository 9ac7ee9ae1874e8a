"""/mcp over HTTP through Django's test client: authentication and its 401s, the limits, and
JSON-RPC calls as a client sends them (the SDK's own client runs against a live hub in
test_live_sdk.py)."""

import json

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from cli.testing import fresh_packet, packet_with_a_secret, two_packet_thread
from ltm.protocol.packet import example_packet
from ltm.protocol.tools import TOOLS
from mcp_remote.testing import PROTOCOL, call, rpc
from oauth.testing import make_access_token
from packets.models import Packet


@pytest.fixture
def token(alice, make_token):
    return make_token(alice)


def test_without_a_token_the_401_points_at_the_resource_metadata(db):
    response = rpc(None, "tools/list")
    assert response.status_code == 401
    challenge = response["WWW-Authenticate"]
    assert challenge.startswith('Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource/mcp"')
    assert "error=" not in challenge  # no token sent: no error code (RFC 6750 section 3)


def test_a_wrong_token_is_invalid_token(db):
    response = rpc("ltm_not-a-token", "tools/list")
    assert response.status_code == 401
    assert 'error="invalid_token"' in response["WWW-Authenticate"]
    assert "resource_metadata=" in response["WWW-Authenticate"]


def test_initialize_and_list_tools(token):
    response = rpc(
        token,
        "initialize",
        {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    )
    assert response.status_code == 200, response.content
    assert response.json()["result"]["protocolVersion"] == PROTOCOL
    assert "Mcp-Session-Id" not in response  # stateless
    listed = rpc(token, "tools/list").json()["result"]["tools"]
    assert {tool["name"] for tool in listed} == set(TOOLS)
    save = next(tool for tool in listed if tool["name"] == "save")
    assert save["inputSchema"] == TOOLS["save"].input_schema


def test_save_then_resume_show_ls_pull(token, alice):
    fresh = fresh_packet()
    text, is_error = call(token, "save", {"packet": fresh})
    assert not is_error, text
    stored = Packet.objects.get(owner=alice)
    assert f"saved packet {stored.id} on http://testserver" in text
    resume, is_error = call(token, "resume", {"id": stored.id})
    assert not is_error and fresh["goal"] in resume
    listed, _ = call(token, "ls", {"limit": 5})
    assert [item["id"] for item in json.loads(listed)] == [stored.id]
    pulled, _ = call(token, "pull", {"id": stored.id})
    assert pulled == stored.body
    shown, _ = call(token, "show", {"id": stored.id})
    assert shown.startswith(stored.id)


def test_refusals_are_tool_errors_with_the_hubs_message(token, bob, make_token):
    secret = packet_with_a_secret()
    text, is_error = call(token, "save", {"packet": secret})
    assert is_error and "next_step: aws-key (AKIA…)" in text and "AKIAIOSFODNN7EXAMPLE" not in text
    assert not Packet.objects.exists()

    text, is_error = call(token, "save", {"packet": secret, "allow_unredacted": True})
    assert not is_error, text

    text, is_error = call(make_token(bob), "resume", {"id": secret["id"]})
    assert is_error and text == "packet not found"  # someone else's packet: not found

    invalid = example_packet()
    invalid["attempts"][0]["outcome"] = "maybe"
    text, is_error = call(token, "save", {"packet": invalid})
    assert is_error and "packet rejected with 1 error;" in text and "$.attempts[0].outcome" in text

    assert call(token, "ls", {"limit": None, "team": None})[1] is False  # null: left out
    text, is_error = call(token, "ls", {"limit": "five"})
    assert is_error and text.startswith("invalid arguments for ls:")
    text, is_error = call(token, "nope")
    assert is_error and "unknown tool 'nope'" in text


def test_a_read_token_may_read_but_not_save(alice):
    token = "read-only-token-value"
    make_access_token(alice, token=token, scope="read")
    text, is_error = call(token, "save", {"packet": example_packet()})
    assert is_error and "needs 'write'" in text
    assert not Packet.objects.exists()
    text, is_error = call(token, "ls")
    assert not is_error and json.loads(text) == []


def test_whoami_names_the_account_and_the_token(token, alice):
    text, is_error = call(token, "whoami")
    identity = json.loads(text)
    assert identity["user"]["username"] == "alice"
    assert identity["scopes"] == ["read", "write"]
    assert identity["host"] == "http://testserver"


def test_a_revoked_token_fails_on_its_next_request(alice):
    from accounts.services import api_token_create, api_token_revoke

    api_token, plaintext = api_token_create(actor=alice, name="agent")
    assert call(plaintext, "ls")[1] is False
    api_token_revoke(actor=alice, token_id=api_token.id)
    assert rpc(plaintext, "tools/list").status_code == 401


@override_settings(LTM_MCP_MAX_REQUEST_BYTES=1000)
def test_a_body_over_the_limit_is_413(token):
    response = rpc(token, "tools/call", {"name": "save", "arguments": {"packet": {"goal": "x" * 2000}}})
    assert response.status_code == 413
    assert "maximum is 1000 bytes" in response.json()["error"]["message"]


def test_tool_calls_are_limited_per_token(token, make_token, alice, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "mcp_tool_call": "2/m/key"}
    cache.clear()
    assert call(token, "ls")[1] is False
    assert call(token, "ls")[1] is False
    text, is_error = call(token, "ls")
    assert is_error and "too many tool calls" in text
    assert call(make_token(alice, name="other"), "ls")[1] is False  # per token


def test_get_and_delete_answer_405_as_a_stateless_server(token):
    response = Client().get("/mcp", HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert Client().delete("/mcp", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 405


@pytest.mark.parametrize(
    "resource, status",
    [
        ([], 200),  # the device flow's tokens name no resource: good for the whole hub
        (["http://testserver/mcp"], 200),
        (["http://testserver"], 200),  # the hub as a whole, /mcp included
        (["https://other.example/mcp"], 401),
        (["http://testserver/v1"], 401),
    ],
)
def test_an_oauth_token_must_be_for_this_resource(alice, resource, status):
    stored = make_access_token(alice, token="audience-token", scope="read")
    stored.resource = resource
    stored.save()
    response = rpc("audience-token", "tools/list")
    assert response.status_code == status
    if status == 401:
        assert "another resource" in response.json()["error_description"]


def test_thread_and_resume_of_a_thread(token, alice):
    from packets.services import packet_push

    first, second = two_packet_thread()
    for packet in (first, second):
        packet_push(actor=alice, packet=packet)
    listed, is_error = call(token, "thread", {"id": second["id"]})
    assert not is_error and [item["id"] for item in json.loads(listed)] == [first["id"], second["id"]]
    resumed, is_error = call(token, "resume", {"id": first["id"], "thread": True})
    from ltm.protocol.resume import render_resume

    assert not is_error and resumed == render_resume(second, [first])
    assert call(token, "thread", {"id": "01HV0000000000000000000000"}) == ("packet not found", True)
