"""Full-text search over packets, on PostgreSQL and on SQLite, with one results contract.

The index is kept by the database (migrations/0005_search.py): PostgreSQL's stored, weighted
`search_vector` with a GIN index, SQLite's FTS5 table `packets_search` kept by triggers. A query
uses web-search syntax (words in any order, "quoted phrases", -word, OR), as PostgreSQL's
`websearch_to_tsquery` reads it; it is parsed here once, then rebuilt for each database: a tsquery
of `phraseto_tsquery` terms, or an FTS5 query of quoted strings only (so no user input can be FTS5
syntax). An alternative with nothing but excluded words is dropped on both, rather than matching
nearly every packet. Snippets and highlights are made here from the packet's JSON, the same way on
both databases."""

import functools
import json
import re
from dataclasses import dataclass, field

import snowballstemmer
from django.db import connection

from packets.models import Packet, personal_sql, readable_sql, team_readable_sql
from teams.models import Team

MAX_QUERY_CHARS = 1000
SNIPPET_CHARS = 200

# PostgreSQL's English stop words (tsearch_data/english.stop): its parser drops them, so the FTS5
# query drops them too, and "the flaky test" finds the same packets on both databases.
STOP_WORDS = frozenset(
    """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing a an the and
but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here
there when where why how all any both each few more most other some such no nor not only own
same so than too very s t can will just don should now
""".split()
)

# Words as FTS5's unicode61 tokenizer cuts them: runs of letters and digits.
WORD = re.compile(r"[^\W_]+")
# One term of web-search syntax: an optional "-", then a "quoted phrase" (the closing quote may
# be missing) or a word.
TERM = re.compile(r'(?P<minus>-?)(?:"(?P<phrase>[^"]*)"?|(?P<word>[^\s"]+))')
PACKET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{9,63}")

_stemmer = snowballstemmer.stemmer("english")


@dataclass(frozen=True)
class Term:
    text: str  # as typed, without its quotes or "-"
    words: tuple[str, ...]  # its words, lowercase (several for a phrase or "flaky-test")
    excluded: bool


@dataclass
class Query:
    """A parsed search: alternatives (OR) of terms that must all hold (AND)."""

    text: str
    alternatives: list[list[Term]] = field(default_factory=list)

    @property
    def wanted_stems(self) -> set[str]:
        """Stems of the words that should be highlighted (not the excluded ones)."""
        return {
            _stem(word)
            for terms in self.alternatives
            for term in terms
            if not term.excluded
            for word in term.words
            if word not in STOP_WORDS
        }


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """The English stem of a word (a pure-Python stemmer: the cache keeps snippets cheap, as
    packets reuse their words)."""
    return _stemmer.stemWord(word.lower())


def parse(text: str) -> Query:
    query = Query(text)
    terms: list[Term] = []
    for match in TERM.finditer(text):
        phrase, word, excluded = match["phrase"], match["word"], bool(match["minus"])
        if word is not None and word.lower() == "or" and not excluded:
            query.alternatives.append(terms)
            terms = []
            continue
        typed = phrase if phrase is not None else word
        words = WORD.findall(typed.lower())
        if phrase is None:
            words = [w for w in words if w not in STOP_WORDS]
        if words:
            terms.append(Term(typed, tuple(words), excluded))
    query.alternatives.append(terms)
    query.alternatives = [terms for terms in query.alternatives if any(not t.excluded for t in terms)]
    return query


def tsquery_sql(query: Query) -> tuple[str, list[str]] | None:
    """The query as a PostgreSQL tsquery expression (each term through phraseto_tsquery, which
    parses and stems it as the vector was), with its parameters. None when nothing is left to look
    for. Built from the same parse as FTS5's, so both databases read the syntax alike."""
    alternatives, params = [], []
    for terms in query.alternatives:
        parts = []
        for term in sorted(terms, key=lambda t: t.excluded):
            parts.append(("!!" if term.excluded else "") + "phraseto_tsquery('english', %s)")
            params.append(term.text)
        alternatives.append("(" + " && ".join(parts) + ")")
    return (" || ".join(alternatives), params) if alternatives else None


def fts5_query(query: Query) -> str | None:
    """The query in FTS5's syntax, built only from double-quoted strings of plain words (which
    FTS5 reads as phrases), so nothing a person types is read as an operator. None when nothing
    is left to look for."""

    def quoted(term: Term) -> str:
        return '"' + " ".join(term.words) + '"'

    alternatives = []
    for terms in query.alternatives:
        # Flat lists, not nested pairs: FTS5's parser has a small stack.
        expression = " AND ".join(dict.fromkeys(quoted(t) for t in terms if not t.excluded))
        excluded = " OR ".join(dict.fromkeys(quoted(t) for t in terms if t.excluded))
        alternatives.append(f"(({expression}) NOT ({excluded}))" if excluded else f"({expression})")
    return " OR ".join(alternatives) or None


# The results.


@dataclass
class Hit:
    packet: Packet  # id, created_at, goal, next_step, body, tags, project, owner_id, team_id, public_slug
    team: str | None
    score: float  # 0 to 1, higher is better; 1 for a packet named by its id
    snippet: list[tuple[str, bool]]  # (text, is a match) pieces; their texts joined are the snippet
    goal: list[tuple[str, bool]]  # the goal, in the same pieces

    @property
    def snippet_text(self) -> str:
        return "".join(text for text, _ in self.snippet)


def search_packets(
    *,
    viewer,
    text: str,
    team_name: str | None = None,
    personal: bool = False,
    tag: str = "",
    project: str = "",
    limit: int = 20,
) -> list[Hit]:
    """The packets the viewer may read that match `text`, best first: the viewer's personal
    packets and every team's, or only the personal ones (`personal`), or only those of the team
    `team_name` (nothing if the viewer is not in it). `tag` and `project` narrow further."""
    query = parse(text)
    scope_sql, scope_params = _scope(viewer, team_name=team_name, personal=personal, tag=tag, project=project)
    found: dict[str, tuple[Packet, float]] = {}
    if PACKET_ID.fullmatch(text.strip()):
        for packet in _by_id(text.strip(), scope_sql, scope_params, limit):
            found[packet.id] = (packet, 1.0)
    for packet in _by_text(query, scope_sql, scope_params, limit):
        found.setdefault(packet.id, (packet, packet.score))
    stems = query.wanted_stems
    return [
        Hit(
            packet=packet,
            team=packet.team_name,
            score=score,
            snippet=_snippet(packet, stems),
            goal=_marked(packet.goal, stems),
        )
        for packet, score in list(found.values())[:limit]
    ]


_COLUMNS = (
    "p.id, p.created_at, p.goal, p.next_step, p.body, p.tags, p.project, p.owner_id, p.team_id, "
    "p.public_slug, t.name AS team_name"
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


def _by_id(prefix: str, scope_sql: str, scope_params: list, limit: int) -> list[Packet]:
    """Packets whose id is `prefix` or starts with it, the exact one first."""
    packets, teams = _tables()
    # A range, not LIKE: a prepared statement's generic plan cannot read an index for `LIKE $1`
    # (it scanned all 100,000 packets), but reads one for a range. Ids are ASCII, so every id
    # with the prefix sorts between it and it followed by the last code point. PostgreSQL's
    # pattern operators compare bytes, as the id's pattern index does, whatever the collation.
    at_least, below = ("~>=~", "~<~") if connection.vendor == "postgresql" else (">=", "<")
    sql = (
        f"SELECT {_COLUMNS} FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE p.id {at_least} %s AND p.id {below} %s AND {scope_sql} "
        "ORDER BY p.id = %s DESC, p.created_at DESC, p.id DESC LIMIT %s"
    )
    return list(Packet.objects.raw(sql, [prefix, prefix + "\U0010ffff", *scope_params, prefix, limit]))


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
    return [word for word in WORD.finditer(text) if _stem(word[0]) in stems]


def _snippet(packet: Packet, stems: set[str]) -> list[tuple[str, bool]]:
    """About SNIPPET_CHARS of the text that matches the most query words, around its first
    match; the next step when nothing matches word for word (a packet found by its id)."""
    best, best_count = packet.next_step, 0
    for text in _texts(packet):
        count = len({_stem(m[0]) for m in _matches(text, stems)}) if text else 0
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
