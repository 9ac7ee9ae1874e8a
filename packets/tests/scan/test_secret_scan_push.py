"""The hub's secret scan on a push, for the strings the client does not scan: a project's ref, the
packet's ids, a disguised token. The finding names the JSON path; the answer never holds the secret."""

import base64

import pytest

from packets.models import Packet
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db

# Made up, in the real format.
TOKEN = "ghp_Q7vR2mK9pL4sT8wZ3nBxY6cJ1dF5hG0aE2uI"


def test_a_token_in_the_projects_ref_is_refused_with_its_path(api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "refuse"
    packet = packet_v02(project={"name": "shop", "ref": f"https://x-access-token:{TOKEN}@github.com/org/repo"})
    response = api_as(alice).post("/v1/packets", packet)
    assert response.status_code == 422, response.content
    assert response.json()["findings"] == [{"path": "project.ref", "kind": "github-token"}]
    assert TOKEN[4:12] not in response.content.decode()
    assert not Packet.objects.filter(pk=packet["id"]).exists()


def test_a_token_as_the_packets_id_or_parent_is_flagged_like_any_field(api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "flag"
    packet = packet_v02(id=TOKEN, parent_id=TOKEN)
    response = api_as(alice).post("/v1/packets", packet)
    assert response.status_code == 201, response.content
    found = [{"path": "id", "kind": "github-token"}, {"path": "parent_id", "kind": "github-token"}]
    assert response.json()["findings"] == found
    stored = Packet.objects.get(pk=TOKEN)
    assert stored.quarantined and stored.findings == found


def test_a_token_in_base64_in_a_nested_list_is_found_under_its_kind(api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "flag"
    blob = base64.b64encode(f"GH_TOKEN={TOKEN}".encode()).decode()
    attempts = [{"tried": "a", "outcome": "failed"}] * 2 + [
        {"tried": "kubectl get secret", "outcome": "partial", "learned": f"data.env: {blob}"}
    ]
    response = api_as(alice).post("/v1/packets", packet_v02(attempts=attempts))
    assert response.status_code == 201, response.content
    assert {"path": "attempts[2].learned", "kind": "github-token"} in response.json()["findings"]
