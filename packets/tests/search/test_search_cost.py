"""What a search costs the hub (bench/README.md has the figures): the statements it runs, the plans
SQLite picks for them, the matches it ranks before checking the scope, and the threads numpy uses."""

import pytest
from django.db import connection
from threadpoolctl import threadpool_info

from packets.models import readable_sql
from packets.search import keyword, sqlite_index
from packets.search import selectors as search
from packets.search.query import parse
from packets.testing import push_packet
from packets.testing.search import statements_of
from packets.testing.sharing import share

pytestmark = pytest.mark.django_db


def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's planner and its FTS5 ranking")


def test_a_hybrid_search_asks_the_database_once_for_each_part(alice, bob, alpha):
    push_packet(alice, goal="Stop the flaky invoice test")
    push_packet(bob, team=alpha, goal="Retry the invoice upload")
    search.search_packets(viewer=alice, text="flaky invoice")  # the matrix is read whole once per process
    statements = statements_of(lambda: search.search_packets(viewer=alice, text="flaky invoice"))
    # Who the viewer reaches (their teams and the packets shared with them), the vectors written
    # since the last look with whether any waits, the candidates by meaning checked against the read
    # rule, the ranking by words (on SQLite after asking whether its index waits), the columns of the
    # best; nobody shared a result, so the senders are not asked for.
    assert len(statements) == (6 if connection.vendor == "sqlite" else 5), [sql for sql, _ in statements]


def test_the_sender_of_a_shared_result_is_still_named(api_as, alice, bob):
    theirs = push_packet(alice, goal="Tune the zeppelin importer")
    share(api_as(alice), theirs.id, "bob")
    for mode in ("hybrid", "semantic", "keyword"):
        hits = search.search_packets(viewer=bob, text="zeppelin importer", mode=mode)
        assert [(hit.packet.id, hit.shared_by) for hit in hits][:1] == [(theirs.id, alice.display_name)], mode


def test_a_search_by_id_prefix_reads_the_id_index_on_sqlite(alice):
    _sqlite_only()
    for number in range(3):
        push_packet(alice, id=f"01PLANPREFIX0000000000000{number}")
    statements = statements_of(lambda: search.search_packets(viewer=alice, text="01PLANPREFIX"))
    by_id = [(sql, params) for sql, params in statements if "ORDER BY p.id = " in sql]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {by_id[0][0]}", by_id[0][1])
        plan = [row[-1] for row in cursor.fetchall()]
    # Not every packet alice may read (the read rule's alternatives, each through its index).
    assert "MULTI-INDEX OR" not in plan, plan
    assert any("sqlite_autoindex_packets_packet_1 (id=?)" in step for step in plan), plan


def test_ranking_the_first_matches_finds_what_ranking_every_match_finds(monkeypatch, alice, bob):
    """On SQLite the scope is checked on the index's best matches first (keyword.FIRST_MATCHES),
    and every match is ranked only when those cannot tell: the answer is the same either way, when
    others' packets rank above the viewer's and when scores tie at the cut."""
    _sqlite_only()
    monkeypatch.setattr(keyword, "FIRST_MATCHES", 1)  # the first 4 × limit
    for number in range(3):  # bob's rank first: the words are in their goal
        push_packet(bob, goal=f"Zeppelin mooring {number}")
    push_packet(alice, goal="Zeppelin mooring mast")
    for owner in (bob, bob, bob, bob, alice, alice, alice):  # the words in the next step only: lower, tied
        push_packet(owner, goal="Ropes", next_step="Check the zeppelin mooring")
    every_match = keyword._sqlite_ranked
    ranked_every_match = []
    monkeypatch.setattr(keyword, "_sqlite_ranked", lambda *args: ranked_every_match.append(args) or every_match(*args))
    scope = readable_sql("p", alice)
    sqlite_index.catch_up()
    for limit in range(1, 12):
        expected = every_match(keyword.fts5_query(parse("zeppelin mooring")), *scope, limit)
        found = keyword.ranked(parse("zeppelin mooring"), *scope, limit)
        assert [packet_id for packet_id, _ in found] == [packet_id for packet_id, _ in expected], limit
        assert len(found) == min(limit, 4)
    assert 0 < len(ranked_every_match) < 11  # both ways were taken


def test_numpy_computes_on_one_thread():
    from packets.search import embedding  # noqa: F401 - importing it sets the limit

    assert [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"] == [1]
