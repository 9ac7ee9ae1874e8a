"""The list reads the newest packets straight off an index, whatever their number (the round trips
of each call are pinned in packets/tests/test_round_trips.py)."""

import pytest
from django.db import connection

from packets import selectors
from packets.models import Packet
from packets.testing import seed_packets

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scope", ["personal", "team"])
def test_list_is_read_from_an_index_in_order_without_sorting(alice, scope):
    """The newest 50 come straight off an index, so their cost does not grow with the number of
    packets: the plan names the index and has no sort step."""
    from teams.services import team_create

    team = team_create(actor=alice, name="plans") if scope == "team" else None
    seed_packets(alice, 50, team=team)
    sql, params = selectors.newest_first_query(viewer=alice, team_name=team.name if team else None, limit=50)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A tiny test table would simply be scanned: make every other path look expensive, so
            # a sort shows up in the plan only when no index gives the order.
            for switch in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                cursor.execute(f"SET LOCAL {switch} = off")
        explain = "EXPLAIN QUERY PLAN " if connection.vendor == "sqlite" else "EXPLAIN "
        cursor.execute(explain + sql, params)
        plan = "\n".join(str(row[0]) + " " + " ".join(str(cell) for cell in row[1:]) for row in cursor.fetchall())
    index = "packet_personal_newest" if scope == "personal" else "packet_team_newest"
    assert index in plan
    assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan


def test_a_push_writes_only_indexes_that_some_query_reads():
    """Every index is written by every push: the packets table keeps only those a query reads
    (the lists, the thread walk, public pages, search, the owner's and the id's lookups)."""
    if connection.vendor != "postgresql":
        pytest.skip("the indexes Django adds by itself (varchar pattern indexes) exist only on PostgreSQL")
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, Packet._meta.db_table)
    names = {name for name, index in indexes.items() if index["index"] or index["unique"] or index["primary_key"]}
    pattern_indexes = {name for name in names if name.endswith("_like")}
    assert pattern_indexes == {name for name in pattern_indexes if name.startswith("packets_packet_id_")}, names
    assert {"packet_personal_newest", "packet_team_newest", "packet_parent", "packet_search"} <= names
    assert not any(index["index"] and index["columns"] == ["team_id"] for index in indexes.values()), names
