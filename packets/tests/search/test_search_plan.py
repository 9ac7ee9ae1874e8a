"""On PostgreSQL a statement a connection runs often is prepared, and PostgreSQL may then plan it
once for any parameters (a generic plan, hub/settings/base.py). Search's statements must read their
indexes in that plan too, not only when their words are written into the SQL."""

import re

import pytest
from django.db import connection

from core.testing import require_postgresql
from packets.search import selectors as search
from packets.testing import packet_v02, store_directly
from packets.testing.search import statements_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql("generic plans of prepared statements are PostgreSQL's")


def generic_plan(sql: str, params: list) -> str:
    """EXPLAIN of `sql` planned for any parameters, as a prepared statement may be; sequential
    scans are made to look expensive, so one shows only where no index can serve."""
    numbers = iter(range(1, len(params) + 1))
    numbered = re.sub("%s", lambda _: f"${next(numbers)}", sql)
    values = ", ".join(connection.ops.compose_sql("%s", [value]) for value in params)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"PREPARE planned AS {numbered}")
        cursor.execute(f"EXPLAIN EXECUTE planned({values})")
        plan = "\n".join(line for (line,) in cursor.fetchall())
        cursor.execute("DEALLOCATE planned")
    return plan


def test_a_search_by_id_prefix_reads_the_id_index_in_a_generic_plan(alice):
    for number in range(3):
        store_directly(alice, packet_v02(id=f"01PLANPREFIX0000000000000{number}"))
    statements = statements_of(lambda: search.search_packets(viewer=alice, text="01PLANPREFIX"))
    by_id = [(sql, params) for sql, params in statements if "ORDER BY p.id = " in sql]
    assert len(by_id) == 1, statements

    plan = generic_plan(*by_id[0])

    # The index is searched for the prefix, not read whole (or the table scanned) and filtered.
    prefix = f"${by_id[0][1].index('01PLANPREFIX') + 1}"
    assert re.search(rf"Index Cond: .*\(id\)::text \S+ \{prefix}\b", plan), plan


def test_a_search_by_words_turns_them_into_a_tsquery_once_in_a_generic_plan(alice):
    store_directly(alice, packet_v02(goal="Find the flaky invoice test"))
    statements = statements_of(lambda: search.search_packets(viewer=alice, text="flaky invoice"))
    by_text = [(sql, params) for sql, params in statements if "search_vector @@" in sql]
    assert len(by_text) == 1, statements

    plan = generic_plan(*by_text[0])

    assert "packet_search" in plan, plan
    # Computed once (an InitPlan), not in the index condition, recheck or rank of every row.
    per_row = [
        line
        for line in plan.splitlines()
        if "phraseto_tsquery" in line and "InitPlan" not in line and re.search(r"Cond|Sort Key|Filter|Output", line)
    ]
    assert per_row == [], plan
