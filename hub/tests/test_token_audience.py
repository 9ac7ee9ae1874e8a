"""A token issued for another resource (RFC 8707: a client that signed itself in for /mcp) is
refused at every bearer entrance of /v1, the invite accept included; a token for the whole hub
is not. The operations come from the OpenAPI description, so a new endpoint is covered the day
it is added."""

import pytest
from django.test import Client

from core.testing import ApiClient
from oauth.testing import make_access_token
from packets.testing import packet_v02
from teams.models import Invite, Membership
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db

MCP_ONLY = "mcp-only-token"
WHOLE_HUB = "whole-hub-token"
METHODS = ("get", "post", "put", "patch", "delete")


def _bearer_operations():
    """(method, path template) of every /v1 operation that takes a bearer token."""
    description = Client().get("/v1/openapi.json").json()
    for path, item in description["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if path.startswith("/v1/") and operation and any(operation.get("security") or [{}]):
                yield method, path


@pytest.fixture
def world(alice, bob, api_as):
    """alice owns team alpha (bob is a member) and a packet; alice's two OAuth tokens, one issued
    for /mcp, one for the whole hub; the values of every path parameter."""
    mcp = make_access_token(alice, token=MCP_ONLY)
    mcp.resource = ["http://testserver/mcp"]
    mcp.save()
    make_access_token(alice, token=WHOLE_HUB)
    packet = packet_v02()
    assert api_as(alice).post("/v1/packets", packet).status_code == 201
    invite, code = make_invite(make_team(alice, "alpha", members=[bob]))
    return {
        "name": "alpha",
        "team": "alpha",
        "id": packet["id"],
        "packet_id": packet["id"],
        "code": code,
        "user_id": bob.id,
        "invite_id": invite.id,
        "device_id": mcp.pk,
        "token_id": mcp.pk,
        "share_id": "01NOSUCHSHARE0000000000000",
        "webhook_id": "01NOSUCHWEBHOOK00000000000",
        "delivery_id": "01NOSUCHDELIVERY0000000000",
    }


def _call(token, method, path, world):
    url, auth = path.format(**world), {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    if method in ("get", "delete"):
        return getattr(Client(), method)(url, **auth)
    return getattr(Client(), method)(url, data="{}", content_type="application/json", **auth)


def test_the_description_lists_the_bearer_operations():
    operations = list(_bearer_operations())
    assert ("post", "/v1/invites/{code}/accept") in operations
    assert ("get", "/v1/packets") in operations and ("post", "/v1/packets") in operations
    assert ("get", "/v1/healthz") not in operations


def test_a_token_for_mcp_is_refused_by_every_v1_operation(world):
    operations = list(_bearer_operations())
    for method, path in operations:
        response = _call(MCP_ONLY, method, path, world)
        assert response.status_code == 401, (method, path, response.content)
        assert response.json() == {"error": "this token was issued for another resource"}, (method, path)
    for method, path in operations:
        assert _call(WHOLE_HUB, method, path, world).status_code != 401, (method, path)


def test_a_token_for_mcp_cannot_join_a_team(world, carol):
    invite = Invite.objects.get()
    carols = make_access_token(carol, token="carol-mcp-token")
    carols.resource = ["http://testserver/mcp"]
    carols.save()
    members = Membership.objects.count()

    refused = ApiClient("carol-mcp-token").post(f"/v1/invites/{world['code']}/accept", {})
    assert refused.status_code == 401
    assert refused.json() == {"error": "this token was issued for another resource"}
    assert Membership.objects.count() == members  # nobody joined, no account was made
    invite.refresh_from_db()
    assert invite.used_at is None  # the invite is still there for its real recipient
