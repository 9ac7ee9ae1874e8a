"""Every /v1 packets endpoint runs a fixed number of SQL queries, whatever the number of packets."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ltm.packet import canonical_json
from packets.models import Packet
from packets.tests.factories import packet_v02

pytestmark = pytest.mark.django_db


def _seed(owner, count):
    body = canonical_json(packet_v02())
    Packet.objects.bulk_create(
        Packet(id=f"01SEED{owner.username}{i:016d}", owner=owner, ltm_version="0.2",
               created_at="2026-01-01T00:00:00Z", goal=f"goal {i}", next_step="n", body=body)
        for i in range(count)
    )


def _queries(call, warm_up=True) -> int:
    if warm_up:  # the token's last-used write happens once a minute, not per request
        call()
    with CaptureQueriesContext(connection) as captured:
        response = call()
    assert response.status_code < 300, response.content
    return len(captured)


def _counts(api, packet_id):
    pushed = packet_v02(id=packet_id)
    counts = {
        "push": _queries(lambda: api.post("/v1/packets", pushed)),
        "list": _queries(lambda: api.get("/v1/packets?limit=50")),
        "pull": _queries(lambda: api.get(f"/v1/packets/{packet_id}")),
    }
    counts["delete"] = _queries(lambda: api.delete(f"/v1/packets/{packet_id}"), warm_up=False)
    return counts


def test_query_counts_do_not_grow_with_packets(api_as, alice):
    api = api_as(alice)
    small = _counts(api, "01COUNTSMALL000000000001")
    _seed(alice, 300)
    large = _counts(api, "01COUNTLARGE000000000001")
    assert small == large
    assert all(count <= 8 for count in large.values()), large
