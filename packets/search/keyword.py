"""Full-text search, on PostgreSQL and on SQLite: the packets that match a parsed query, best
first, and those whose id starts with what was typed.

The index is kept by the database (migrations/0005_search.py): PostgreSQL's stored, weighted
`search_vector` with a GIN index, SQLite's FTS5 table `packets_search`, in a file of its own written off
the push (packets.search.sqlite_index, packets.search.queue: a search first indexes what waits). A query
uses web-search syntax, parsed once and rebuilt for each database by packets.search.query (an
alternative with nothing but excluded words is dropped on both, rather than matching nearly
every packet)."""

from django.db import connection

from packets.models import Packet
from packets.search import sqlite_index
from packets.search.query import Query, fts5_query, tsquery_sql
from teams.models import Team

COLUMNS = (
    "p.id, p.created_at, p.goal, p.next_step, p.body, p.tags, p.project, p.owner_id, p.team_id, "
    "p.public_slug, p.quarantined, t.name AS team_name"
)


def tables():
    return Packet._meta.db_table, Team._meta.db_table


def by_id(prefix: str, scope_sql: str, scope_params: list, held: tuple[str, list], limit: int) -> list[Packet]:
    """Packets whose id is `prefix` or starts with it, the exact one first, each with `held`."""
    packets, teams = tables()
    # A range, not LIKE: a prepared statement's generic plan cannot read an index for `LIKE $1`
    # (it scans every packet), but reads one for a range. Ids are ASCII, so every id
    # with the prefix sorts between it and it followed by the last code point. PostgreSQL's
    # pattern operators compare bytes, as the id's pattern index does, whatever the collation.
    if connection.vendor == "postgresql":
        in_range = "p.id ~>=~ %s AND p.id ~<~ %s"
    else:
        # The range in a subquery of its own: given it beside the read rule, SQLite's planner reads
        # the rule's alternatives through their three indexes (every packet the viewer may read).
        in_range = f"p.id IN (SELECT id FROM {packets} WHERE id >= %s AND id < %s)"
    held_condition, held_params = held
    sql = (
        f"SELECT {COLUMNS}, {held_condition} AS held FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE {in_range} AND {scope_sql} "
        "ORDER BY p.id = %s DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    params = [*held_params, prefix, prefix + "\U0010ffff", *scope_params, prefix, limit]
    return list(Packet.objects.raw(sql, params))


def by_text(query: Query, scope_sql: str, scope_params: list, limit: int) -> list[Packet]:
    """The best `limit` packets passing the scope that match `query`, best first, with the columns
    a hit shows and their `score` (0..1)."""
    packets, teams = tables()
    if connection.vendor == "postgresql":
        tsquery = tsquery_sql(query)
        if tsquery is None:
            return []
        # Every match is ranked, so the inner query carries only what the ranking needs; the
        # columns of the best are read after.
        inner, params = _postgresql_ranked(tsquery, scope_sql, scope_params, limit)
        sql = (
            f"SELECT {COLUMNS}, ranked.score FROM ({inner}) ranked JOIN {packets} p ON p.id = ranked.id "
            f"LEFT JOIN {teams} t ON t.id = p.team_id ORDER BY ranked.score DESC, ranked.created_at DESC, ranked.id DESC"
        )
        return list(Packet.objects.raw(sql, params))
    best = ranked(query, scope_sql, scope_params, limit)
    if not best:
        return []
    sql = (
        f"SELECT {COLUMNS} FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE p.id IN ({', '.join(['%s'] * len(best))})"
    )
    rows = {packet.id: packet for packet in Packet.objects.raw(sql, [packet_id for packet_id, _ in best])}
    found = []
    for packet_id, score in best:
        if packet_id in rows:
            rows[packet_id].score = score
            found.append(rows[packet_id])
    return found


def ranked(query: Query, scope_sql: str, scope_params: list, limit: int) -> list[tuple[str, float]]:
    """The ids and scores (0..1) of the best `limit` packets passing the scope that match
    `query`, best first: what by_text finds, without reading the packets' columns."""
    if connection.vendor == "postgresql":
        tsquery = tsquery_sql(query)
        if tsquery is None:
            return []
        sql, params = _postgresql_ranked(tsquery, scope_sql, scope_params, limit)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [(packet_id, score) for packet_id, _, score in cursor.fetchall()]
    match = fts5_query(query)
    if match is None:
        return []
    sqlite_index.catch_up()
    best = _sqlite_ranked_first(match, scope_sql, scope_params, limit)
    if best is None:
        best = _sqlite_ranked(match, scope_sql, scope_params, limit)
    return [(packet_id, score / (score + 1) if score > 0 else 0.0) for packet_id, score in best]


def _postgresql_ranked(tsquery: tuple[str, list], scope_sql: str, scope_params: list, limit: int):
    """(SELECT of id, created_at, score of the best `limit` matches passing the scope, params)."""
    packets, _ = tables()
    # The tsquery is a scalar subquery, computed once per statement (an InitPlan) also in a
    # prepared statement's generic plan, where the words are parameters: written inline, each
    # matching row's recheck and rank parsed and stemmed them again.
    # Rank normalisation 1|32: divided by 1 + log(length), so a short packet about the words
    # beats a long one that mentions them; then mapped to 0..1.
    expression, params = tsquery
    sql = (
        f"SELECT p.id, p.created_at, ts_rank(p.search_vector, (SELECT {expression}), 33) AS score "
        f"FROM {packets} p WHERE p.search_vector @@ (SELECT {expression}) AND {scope_sql} "
        "ORDER BY score DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    return sql, [*params, *params, *scope_params, limit]


# bm25 with the columns' weights (goal, tags, context, details), as PostgreSQL's A, A, B, C; it is
# lower for better matches, so its negation is the score.
_BM25 = "-bm25(packets_search, 5.0, 5.0, 2.0, 1.0)"
# Matches the index ranks first, before any is checked against the scope (see _sqlite_ranked_first).
FIRST_MATCHES = 200


def _sqlite_ranked_first(match: str, scope_sql: str, scope_params: list, limit: int):
    """The best `limit` (id, bm25 score) passing the scope, found among the index's best
    FIRST_MATCHES (or 4 × `limit`) matches alone; None when those cannot tell for sure.

    The index ranks every match by itself, quickly; what costs is reading each match's packet row
    to check the scope. A broad query matches thousands of packets, of which a search shows 20: the
    scope is checked on the best few hundred only. That is exact when enough of them pass and the
    last one shown scores more than the lowest of those few hundred (every match left out scores
    that or less); otherwise the caller ranks every match (_sqlite_ranked)."""
    packets, _ = tables()
    first = max(FIRST_MATCHES, 4 * limit)
    sql = (
        f"SELECT d.packet_id, f.score, CASE WHEN {scope_sql} THEN 1 ELSE 0 END FROM ("
        f"SELECT rowid AS doc, {_BM25} AS score FROM search.packets_search WHERE packets_search MATCH %s "
        "ORDER BY score DESC LIMIT %s"
        f") f JOIN search.packets_search_doc d ON d.id = f.doc JOIN {packets} p ON p.id = d.packet_id "
        "ORDER BY f.score DESC, p.created_at DESC, p.id DESC"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*scope_params, match, first])
        rows = cursor.fetchall()
    passing = [(packet_id, score) for packet_id, score, passes in rows if passes]
    if len(rows) < first:  # every match was ranked
        return passing[:limit]
    if len(passing) >= limit and passing[limit - 1][1] > rows[-1][1]:
        return passing[:limit]
    return None


def _sqlite_ranked(match: str, scope_sql: str, scope_params: list, limit: int) -> list[tuple[str, float]]:
    """The best `limit` (id, bm25 score) passing the scope, every match ranked."""
    packets, _ = tables()
    sql = (
        f"SELECT p.id, {_BM25} AS score FROM search.packets_search s JOIN search.packets_search_doc d ON d.id = s.rowid "
        f"JOIN {packets} p ON p.id = d.packet_id WHERE packets_search MATCH %s AND {scope_sql} "
        "ORDER BY score DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [match, *scope_params, limit])
        return cursor.fetchall()
