"""An authorization code is good for one exchange. A second exchange means the code leaked: it
is refused, and every token the first exchange issued stops working, the refresh token and the
tokens rotated from it included (RFC 6749 section 4.1.2)."""

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from core.testing import signed_in
from oauth.models import SpentAuthorizationCode
from oauth.tasks import purge_expired_oauth
from oauth.testing import approve, exchange, pkce, refresh, register


def mcp_call(token):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    return Client().post(
        "/mcp",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
    )


def signed_in_client(alice):
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    code = approve(signed_in(alice), client_id, challenge)["code"][0]
    first = exchange(client_id, code, verifier)
    assert first.status_code == 200, first.content
    return client_id, code, verifier, first.json()


def test_a_replayed_code_revokes_the_tokens_of_the_first_exchange(alice):
    client_id, code, verifier, tokens = signed_in_client(alice)
    assert mcp_call(tokens["access_token"]).status_code == 200

    replay = exchange(client_id, code, verifier)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert mcp_call(tokens["access_token"]).status_code == 401
    refused = refresh(client_id, tokens["refresh_token"])
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_a_replay_after_a_refresh_revokes_the_rotated_tokens_too(alice):
    client_id, code, verifier, tokens = signed_in_client(alice)
    rotated = refresh(client_id, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.content
    rotated = rotated.json()
    assert mcp_call(rotated["access_token"]).status_code == 200

    assert exchange(client_id, code, verifier).status_code == 400
    assert mcp_call(rotated["access_token"]).status_code == 401
    assert refresh(client_id, rotated["refresh_token"]).status_code == 400


def test_an_unknown_code_revokes_nothing(alice):
    client_id, _code, verifier, tokens = signed_in_client(alice)
    assert exchange(client_id, "not-a-code-we-issued", verifier).status_code == 400
    assert mcp_call(tokens["access_token"]).status_code == 200


def test_a_spent_code_is_kept_as_a_checksum_until_the_purge(alice):
    _client_id, code, _verifier, _tokens = signed_in_client(alice)
    spent = SpentAuthorizationCode.objects.get()
    assert code not in spent.code_hash and len(spent.code_hash) == 64
    purge_expired_oauth()
    assert SpentAuthorizationCode.objects.count() == 1
    SpentAuthorizationCode.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    purge_expired_oauth()
    assert SpentAuthorizationCode.objects.count() == 0
