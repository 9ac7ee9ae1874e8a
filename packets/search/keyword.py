"""Full-text search, on PostgreSQL and on SQLite: the packets that match a parsed query, best
first, and those whose id starts with what was typed.

The index is kept by the database (migrations/0005_search.py): PostgreSQL's stored, weighted
`search_vector` with a GIN index, SQLite's FTS5 table `packets_search` kept by triggers, in batches
off the push (migrations 0012 and 0013, packets.search.queue: a search first indexes what waits). A query
uses web-search syntax, parsed once and rebuilt for each database by packets.search.query (an
alternative with nothing but excluded words is dropped on both, rather than matching nearly
every packet)."""

from django.db import connection

from packets.models import Packet
from packets.search.query import Query, fts5_query, tsquery_sql
from packets.sqlite_writers import write_turn
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
    at_least, below = ("~>=~", "~<~") if connection.vendor == "postgresql" else (">=", "<")
    held_condition, held_params = held
    sql = (
        f"SELECT {COLUMNS}, {held_condition} AS held FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE p.id {at_least} %s AND p.id {below} %s AND {scope_sql} "
        "ORDER BY p.id = %s DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    params = [*held_params, prefix, prefix + "\U0010ffff", *scope_params, prefix, limit]
    return list(Packet.objects.raw(sql, params))


def by_text(query: Query, scope_sql: str, scope_params: list, limit: int) -> list[Packet]:
    packets, teams = tables()
    if connection.vendor == "postgresql":
        tsquery = tsquery_sql(query)
        if tsquery is None:
            return []
        # The tsquery is a scalar subquery, computed once per statement (an InitPlan) also in a
        # prepared statement's generic plan, where the words are parameters: written inline, each
        # matching row's recheck and rank parsed and stemmed them again.
        # Rank normalisation 1|32: divided by 1 + log(length), so a short packet about the words
        # beats a long one that mentions them; then mapped to 0..1. Every match is ranked, so the
        # inner query carries only what the ranking needs; the columns of the best are read after.
        tsquery_expression, tsquery_params = tsquery
        sql = (
            f"SELECT {COLUMNS}, ranked.score FROM ("
            f"SELECT p.id, p.created_at, ts_rank(p.search_vector, (SELECT {tsquery_expression}), 33) AS score "
            f"FROM {packets} p WHERE p.search_vector @@ (SELECT {tsquery_expression}) AND {scope_sql} "
            "ORDER BY score DESC, p.created_at DESC, p.id DESC LIMIT %s"
            f") ranked JOIN {packets} p ON p.id = ranked.id LEFT JOIN {teams} t ON t.id = p.team_id "
            "ORDER BY ranked.score DESC, ranked.created_at DESC, ranked.id DESC"
        )
        return list(Packet.objects.raw(sql, [*tsquery_params, *tsquery_params, *scope_params, limit]))
    match = fts5_query(query)
    if match is None:
        return []
    catch_up_sqlite_index()
    # bm25 with the columns' weights (goal, tags, context, details), as PostgreSQL's A, A, B, C;
    # it is lower for better matches.
    sql = (
        f"SELECT {COLUMNS}, -bm25(packets_search, 5.0, 5.0, 2.0, 1.0) AS score "
        f"FROM packets_search s JOIN packets_search_doc d ON d.id = s.rowid "
        f"JOIN {packets} p ON p.id = d.packet_id LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE packets_search MATCH %s AND {scope_sql} "
        "ORDER BY score DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    found = list(Packet.objects.raw(sql, [match, *scope_params, limit]))
    for packet in found:
        packet.score = packet.score / (packet.score + 1) if packet.score > 0 else 0.0
    return found


def catch_up_sqlite_index() -> None:
    """Index the packets still waiting for SQLite's search index (packets.search.queue indexes them
    a moment after their push), so that a search sees every packet pushed before it. Only a search
    with something waiting writes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM packets_search_waiting)")
        if cursor.fetchone()[0]:
            with write_turn(connection, durable=False):
                cursor.execute("INSERT INTO packets_search_catch_up (now) VALUES (1)")
