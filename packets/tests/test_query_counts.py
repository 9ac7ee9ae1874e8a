"""Every /v1 packets endpoint runs a fixed number of SQL queries, whatever the number of packets."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ltm.protocol.packet import canonical_json
from packets import selectors
from packets.models import Packet
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db


def _seed(owner, count, team=None):
    body = canonical_json(packet_v02())
    Packet.objects.bulk_create(
        Packet(id=f"01SEED{owner.username}{i:016d}", owner=owner, team=team, ltm_version="0.2",
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


@pytest.mark.parametrize("scope", ["personal", "team"])
def test_list_is_read_from_an_index_in_order_without_sorting(alice, scope):
    """The newest 50 come straight off an index, so their cost does not grow with the number of
    packets: the plan names the index and has no sort step."""
    from teams.services import team_create

    team = team_create(actor=alice, name="plans") if scope == "team" else None
    _seed(alice, 50, team=team)
    queryset = selectors.packet_list(viewer=alice, team=team, limit=50)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A tiny test table would simply be scanned: make every other path look expensive, so
            # a sort shows up in the plan only when no index gives the order.
            for switch in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                cursor.execute(f"SET LOCAL {switch} = off")
        plan = queryset.explain()
    index = "packet_personal_newest" if scope == "personal" else "packet_team_newest"
    assert index in plan
    assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan
