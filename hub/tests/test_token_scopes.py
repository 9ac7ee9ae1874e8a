"""What an OAuth token's scope allows, on the endpoints of every app: "read" cannot change
anything, "write" cannot read anything."""

import pytest

from core.testing import ApiClient
from oauth.testing import device_token
from packets.models import Packet
from packets.testing import packet_v02
from teams.models import Invite, Membership, Team
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


def test_oauth_token_reads_and_writes_packets(client, alice):
    api = ApiClient(device_token(client, alice))
    packet = packet_v02()
    assert api.post("/v1/packets", packet).status_code == 201
    listed = api.get("/v1/packets")
    assert listed.status_code == 200
    assert [item["id"] for item in listed.json()["packets"]] == [packet["id"]]
    assert api.delete(f"/v1/packets/{packet['id']}").status_code == 204


def test_read_only_token_gets_403_on_writes(client, alice, api_as):
    packet = packet_v02()
    assert api_as(alice).post("/v1/packets", packet).status_code == 201
    reader = ApiClient(device_token(client, alice, scope="read"))
    assert reader.get("/v1/packets").status_code == 200
    refused = reader.post("/v1/packets", packet_v02())
    assert refused.status_code == 403
    assert "write" in refused.json()["error"]
    assert reader.delete(f"/v1/packets/{packet['id']}").status_code == 403


WRITES = [
    ("post", "/v1/teams", {"name": "beta"}),
    ("delete", "/v1/teams/alpha", None),
    ("delete", "/v1/teams/alpha/members/{bob}", None),
    ("post", "/v1/teams/alpha/invites", {}),
    ("delete", "/v1/teams/alpha/invites/{invite}", None),
    ("post", "/v1/packets/{packet}/publish", {}),
    ("delete", "/v1/packets/{packet}/publish", None),
    ("post", "/v1/account/claim-link", {}),
]
READS = ["/v1/packets", "/v1/packets/{packet}", "/v1/teams", "/v1/teams/alpha/members", "/v1/teams/alpha/invites"]


@pytest.fixture
def alpha_with_a_published_packet(alice, bob, api_as):
    """alice owns alpha (bob is a member), has a pending invite and a published personal packet."""
    team = make_team(alice, "alpha", members=[bob])
    invite, _ = make_invite(team)
    packet = packet_v02()
    assert api_as(alice).post("/v1/packets", packet).status_code == 201
    assert api_as(alice).post(f"/v1/packets/{packet['id']}/publish").status_code == 200
    return {"bob": bob.id, "invite": invite.id, "packet": packet["id"]}


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
def test_a_read_only_token_changes_nothing_anywhere(client, alice, alpha_with_a_published_packet, method, path, body):
    reader = ApiClient(device_token(client, alice, scope="read"))
    path = path.format(**alpha_with_a_published_packet)
    response = reader.post(path, body) if method == "post" else reader.delete(path)
    assert response.status_code == 403, path
    assert response.json() == {"error": "this token's scope does not allow this request (it needs 'write')"}
    assert list(Team.objects.values_list("name", flat=True)) == ["alpha"]
    assert Membership.objects.count() == 2
    assert Invite.objects.filter(revoked_at=None).count() == 1
    assert Packet.objects.get().public_slug


@pytest.mark.parametrize("path", READS)
def test_a_write_only_token_reads_nothing(client, alice, alpha_with_a_published_packet, path):
    writer = ApiClient(device_token(client, alice, scope="write"))
    response = writer.get(path.format(**alpha_with_a_published_packet))
    assert response.status_code == 403, path
    assert response.json() == {"error": "this token's scope does not allow reading (it needs 'read')"}
