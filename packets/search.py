"""Full-text search over packets, on PostgreSQL and on SQLite, with one results contract.

The index is kept by the database (migrations/0005_search.py): PostgreSQL's stored, weighted
`search_vector` with a GIN index, SQLite's FTS5 table `packets_search` kept by triggers, in batches
off the push (migrations 0012 and 0013, packets.search_queue: a search first indexes what waits). A query
uses web-search syntax, parsed once and rebuilt for each database by packets.search_query (an
alternative with nothing but excluded words is dropped on both, rather than matching nearly
every packet). Snippets and highlights are made here from the packet's JSON, the same way on
both databases."""

import json
import re
from dataclasses import dataclass

from django.db import connection

from core.sqlite_writers import write_turn
from core.timestamps import rfc3339
from ltm.protocol.tool_calls import search_result
from packets.models import HELD_GOAL, Packet, held_out, held_sql, personal_sql, readable_sql, team_readable_sql
from packets.search_query import PACKET_ID, WORD, Query, fts5_query, parse, stem, tsquery_sql
from packets.shares import shared_by
from teams.models import Team
from teams.selectors import team_get_for_member

MAX_QUERY_CHARS = 1000
SNIPPET_CHARS = 200
DEFAULT_LIMIT = 20
MAX_LIMIT = 100

# The results.


@dataclass
class Hit:
    packet: Packet  # id, created_at, goal, next_step, body, tags, project, owner_id, team_id, public_slug, quarantined, held
    team: str | None
    score: float  # 0 to 1, higher is better; 1 for a packet named by its id
    snippet: list[tuple[str, bool]]  # (text, is a match) pieces; their texts joined are the snippet
    goal: list[tuple[str, bool]]  # the goal, in the same pieces
    shared_by: str | None = None  # who shared it with the viewer, if someone did

    @property
    def snippet_text(self) -> str:
        return "".join(text for text, _ in self.snippet)

    def result(self) -> dict:
        """The hit as /v1/search lists it: ltm.protocol's `search_result`, the shape of both
        `search` tools (SearchResultSerializer describes it)."""
        packet = self.packet
        return search_result(
            id=packet.id,
            created_at=rfc3339(packet.created_at),
            goal=packet.goal,
            team=self.team,
            snippet=self.snippet_text,
            score=self.score,
            shared_by=self.shared_by,
            held=self.packet.held,
        )


def search_packets(
    *,
    viewer,
    text: str,
    team_name: str | None = None,
    personal: bool = False,
    tag: str = "",
    project: str = "",
    limit: int = DEFAULT_LIMIT,
) -> list[Hit]:
    """The packets the viewer may read that match `text` (web-search syntax), best first: the
    viewer's personal packets and every team's, or only the personal ones (`personal`), or only
    those of the team `team_name` (NotFound if the viewer is not in it). `tag` and `project`
    narrow further. A packet id, or 10+ characters that start one, puts that packet first.

    A packet the secret scan holds back from the viewer (HELD) is found by its id only, never by
    what it says (its words, tags or project), and comes with its goal HELD_GOAL and no snippet.

    This is the selector (packets.selectors.packet_text_search is this function)."""
    query = parse(text)
    scope_sql, scope_params = _scope(viewer, team_name=team_name, personal=personal, tag=tag, project=project)
    held, held_params = held_sql("p", viewer)
    found: dict[str, tuple[Packet, float]] = {}
    if PACKET_ID.fullmatch(text.strip()):
        for packet in _by_id(text.strip(), scope_sql, scope_params, (held, held_params), limit):
            found[packet.id] = (held_out(packet), 1.0)
    for packet in _by_text(query, f"{scope_sql} AND NOT {held}", [*scope_params, *held_params], limit):
        packet.held = False
        found.setdefault(packet.id, (packet, packet.score))
    if not found and team_name is not None:
        team_get_for_member(viewer=viewer, name=team_name)  # nothing found: is it the team's 404?
    stems = query.wanted_stems
    best = list(found.values())[:limit]
    senders = shared_by(viewer=viewer, packet_ids=[packet.id for packet, _ in best]) if best else {}
    return [
        Hit(
            packet=packet,
            team=packet.team_name,
            score=score,
            snippet=[] if packet.held else _snippet(packet, stems),
            goal=[(HELD_GOAL, False)] if packet.held else _marked(packet.goal, stems),
            shared_by=senders.get(packet.id),
        )
        for packet, score in best
    ]


_COLUMNS = (
    "p.id, p.created_at, p.goal, p.next_step, p.body, p.tags, p.project, p.owner_id, p.team_id, "
    "p.public_slug, p.quarantined, t.name AS team_name"
)


def _tables():
    return Packet._meta.db_table, Team._meta.db_table


def _scope(viewer, *, team_name, personal, tag, project) -> tuple[str, list]:
    """The SQL condition on `p` (a packets row) for what the viewer may read, narrowed."""
    if team_name is not None:
        sql, params = team_readable_sql("p", viewer, team_name)
    elif personal:
        sql, params = personal_sql("p", viewer)
    else:
        sql, params = readable_sql("p", viewer)
    if tag.strip() or project.strip():  # they read the content, which a held packet keeps from the viewer
        held, held_params = held_sql("p", viewer)
        sql, params = f"{sql} AND NOT {held}", [*params, *held_params]
    if tag.strip():
        # Tags are stored space-padded (" a b "), so a whole tag is a padded substring.
        sql += " AND p.tags LIKE %s ESCAPE '\\'"
        params.append(f"% {_like_escape(tag.strip())} %")
    if project.strip():
        sql += " AND p.project = %s"
        params.append(project.strip())
    return sql, params


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _by_id(prefix: str, scope_sql: str, scope_params: list, held: tuple[str, list], limit: int) -> list[Packet]:
    """Packets whose id is `prefix` or starts with it, the exact one first, each with `held`."""
    packets, teams = _tables()
    # A range, not LIKE: a prepared statement's generic plan cannot read an index for `LIKE $1`
    # (it scanned all 100,000 packets), but reads one for a range. Ids are ASCII, so every id
    # with the prefix sorts between it and it followed by the last code point. PostgreSQL's
    # pattern operators compare bytes, as the id's pattern index does, whatever the collation.
    at_least, below = ("~>=~", "~<~") if connection.vendor == "postgresql" else (">=", "<")
    held_condition, held_params = held
    sql = (
        f"SELECT {_COLUMNS}, {held_condition} AS held FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE p.id {at_least} %s AND p.id {below} %s AND {scope_sql} "
        "ORDER BY p.id = %s DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    params = [*held_params, prefix, prefix + "\U0010ffff", *scope_params, prefix, limit]
    return list(Packet.objects.raw(sql, params))


def _by_text(query: Query, scope_sql: str, scope_params: list, limit: int) -> list[Packet]:
    packets, teams = _tables()
    if connection.vendor == "postgresql":
        tsquery = tsquery_sql(query)
        if tsquery is None:
            return []
        # The tsquery is a scalar subquery, computed once per statement (an InitPlan) also in a
        # prepared statement's generic plan, where the words are parameters: written inline, each
        # matching row's recheck and rank parsed and stemmed them again (three times the cost).
        # Rank normalisation 1|32: divided by 1 + log(length), so a short packet about the words
        # beats a long one that mentions them; then mapped to 0..1. Every match is ranked, so the
        # inner query carries only what the ranking needs; the columns of the best are read after.
        tsquery_expression, tsquery_params = tsquery
        sql = (
            f"SELECT {_COLUMNS}, ranked.score FROM ("
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
    _catch_up_sqlite_index()
    # bm25 with the columns' weights (goal, tags, context, details), as PostgreSQL's A, A, B, C;
    # it is lower for better matches.
    sql = (
        f"SELECT {_COLUMNS}, -bm25(packets_search, 5.0, 5.0, 2.0, 1.0) AS score "
        f"FROM packets_search s JOIN packets_search_doc d ON d.id = s.rowid "
        f"JOIN {packets} p ON p.id = d.packet_id LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE packets_search MATCH %s AND {scope_sql} "
        "ORDER BY score DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    found = list(Packet.objects.raw(sql, [match, *scope_params, limit]))
    for packet in found:
        packet.score = packet.score / (packet.score + 1) if packet.score > 0 else 0.0
    return found


def _catch_up_sqlite_index() -> None:
    """Index the packets still waiting for SQLite's search index (packets.search_queue indexes them
    a moment after their push), so that a search sees every packet pushed before it. Only a search
    with something waiting writes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM packets_search_waiting)")
        if cursor.fetchone()[0]:
            with write_turn(connection):
                cursor.execute("INSERT INTO packets_search_catch_up (now) VALUES (1)")


# Snippets: the piece of text around the match, and the matched words marked.


def _texts(packet: Packet) -> list[str]:
    """The packet's searched texts, in the order a snippet prefers them on a tie (the goal late:
    it is shown anyway)."""
    try:
        body = json.loads(packet.body)
    except ValueError:
        body = {}

    def strings(key, *names):
        items = body.get(key) if isinstance(body.get(key), list) else []
        if not names:
            return [item for item in items if isinstance(item, str)]
        return [
            item.get(name)
            for item in items
            if isinstance(item, dict)
            for name in names
            if isinstance(item.get(name), str)
        ]

    return [
        packet.next_step,
        *strings("decisions", "what", "why", "consequences"),
        *strings("attempts", "tried", "learned"),
        *strings("success_criteria"),
        *strings("constraints"),
        *strings("methods", "name", "when_applicable", "how"),
        *strings("open_questions"),
        packet.goal,
        packet.project,
        " ".join(packet.tags.split()),
    ]


def _matches(text: str, stems: set[str]) -> list[re.Match]:
    return [word for word in WORD.finditer(text) if stem(word[0]) in stems]


def _snippet(packet: Packet, stems: set[str]) -> list[tuple[str, bool]]:
    """About SNIPPET_CHARS of the text that matches the most query words, around its first
    match; the next step when nothing matches word for word (a packet found by its id)."""
    best, best_count = packet.next_step, 0
    for text in _texts(packet):
        count = len({stem(m[0]) for m in _matches(text, stems)}) if text else 0
        if count > best_count:
            best, best_count = text, count
    matches = _matches(best, stems)
    start = 0
    if matches and matches[0].start() > SNIPPET_CHARS // 3:
        start = best.rfind(" ", 0, matches[0].start() - SNIPPET_CHARS // 3) + 1
    end = len(best)
    if end - start > SNIPPET_CHARS:
        end = best.rfind(" ", start, start + SNIPPET_CHARS)
        end = end if end > start else start + SNIPPET_CHARS
    pieces = _marked(best[start:end], stems)
    if start > 0:
        pieces.insert(0, ("…", False))
    if end < len(best):
        pieces.append(("…", False))
    return pieces


def _marked(text: str, stems: set[str]) -> list[tuple[str, bool]]:
    """`text` cut into pieces, the words whose stem was searched marked True."""
    pieces, at = [], 0
    for word in _matches(text, stems):
        if word.start() > at:
            pieces.append((text[at : word.start()], False))
        pieces.append((word[0], True))
        at = word.end()
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces
