"""Search, the one every surface calls (/v1/search, the dashboard's list, both MCP servers), in
three modes: `keyword`, full-text search (packets.search.keyword); `semantic`, by meaning alone
(packets.search.semantic); and `hybrid`, the default, both rankings fused (packets.search.fusion).
And `related`: the packets nearest in meaning to one. With LTM_SEMANTIC off, every search is
keyword search and `related` is refused. docs/search.md explains the modes and the ranking."""

import json

from core.errors import BadRequest
from packets.models import (
    HELD_GOAL,
    Packet,
    content_readable_sql,
    held_out,
    held_sql,
    personal_sql,
    readable_sql,
    team_readable_sql,
)
from packets.search import fusion, keyword, meaning
from packets.search.hits import Hit, marked, snippet
from packets.search.query import PACKET_ID, parse
from packets.selectors import packet_get
from packets.sharing.selectors import shared_by
from teams.selectors import team_get_for_member

MODES = ("hybrid", "keyword", "semantic")
MAX_QUERY_CHARS = 1000
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
RELATED_DEFAULT_LIMIT = 5
RELATED_MAX_LIMIT = 50
CANDIDATES = 50  # at least this many of each ranking are fused
SEMANTIC_OFF = "related packets are found by meaning, which this hub has turned off (LTM_SEMANTIC=off)"


def search_packets(
    *,
    viewer,
    text: str,
    team_name: str | None = None,
    personal: bool = False,
    tag: str = "",
    project: str = "",
    limit: int = DEFAULT_LIMIT,
    mode: str = "hybrid",
) -> list[Hit]:
    """The packets the viewer may read that match `text`, best first: the viewer's personal
    packets and every team's, or only the personal ones (`personal`), or only those of the team
    `team_name` (NotFound if the viewer is not in it). `tag` and `project` narrow further. A
    packet id, or 10+ characters that start one, puts that packet first, whatever the mode.

    `mode` (one of MODES) says how the others are found: by their words (web-search syntax), by
    meaning, or both fused. A packet the secret scan holds back from the viewer (HELD) is found by
    its id only, never by what it says, and comes with its goal HELD_GOAL and no snippet."""
    if not meaning.enabled():
        mode = "keyword"
    query = parse(text)
    scope_sql, scope_params = _scope(viewer, team_name=team_name, personal=personal, tag=tag, project=project)
    held, held_params = held_sql("p", viewer)
    content = f"{scope_sql} AND NOT {held}", [*scope_params, *held_params]
    found: dict[str, tuple[Packet, float, tuple[str, ...]]] = {}
    shared = None  # the ids shared with the viewer, when known
    if PACKET_ID.fullmatch(text.strip()):
        for packet in keyword.by_id(text.strip(), scope_sql, scope_params, (held, held_params), limit):
            found[packet.id] = (held_out(packet), 1.0, ("keyword",))
    if mode == "keyword":
        ranked = [(packet, packet.score, ("keyword",)) for packet in keyword.by_text(query, *content, limit)]
    else:
        reach = {"viewer": viewer, "team_name": team_name, "personal": personal}
        ranked, shared = _by_meaning(text, content, reach, limit=limit, fused=mode == "hybrid")
    for packet, score, matched in ranked:
        packet.held = False
        found.setdefault(packet.id, (packet, score, matched))
    if not found and team_name is not None:
        team_get_for_member(viewer=viewer, name=team_name)  # nothing found: is it the team's 404?
    return _hits(viewer, list(found.values())[:limit], stems=query.wanted_stems, shared=shared)


def related_packets(*, viewer, packet_id: str, limit: int = RELATED_DEFAULT_LIMIT) -> list[Hit]:
    """The packets the viewer may read nearest in meaning to the packet `packet_id`, best first,
    itself left out. The packet is read as a pull reads it: NotFound when the viewer may not read
    it, Held when the secret scan holds it back from them."""
    if not meaning.enabled():
        raise BadRequest(SEMANTIC_OFF)
    from packets.search import embedding, semantic  # numpy: loaded only with the feature on (meaning)

    packet = packet_get(viewer=viewer, packet_id=packet_id)
    stored = packet.embedding
    vector = embedding.from_bytes(bytes(stored) if stored else embedding.packet_vector(json.loads(packet.body)))
    sql, params = content_readable_sql("p", viewer)
    within = semantic.reach(viewer)
    nearest = semantic.nearest(
        vector=vector, within=within, scope_sql=sql, scope_params=params, limit=limit, leave_out=packet.id
    )
    rows = _rows([packet_id for packet_id, _ in nearest])
    best = [(rows[packet_id], max(score, 0.0), ("semantic",)) for packet_id, score in nearest if packet_id in rows]
    for found, _, _ in best:
        found.held = False
    return _hits(viewer, best, stems=set(), shared=within.packet_ids)


def _by_meaning(text: str, content: tuple[str, list], reach: dict, *, limit: int, fused: bool) -> tuple[list, tuple]:
    """The best `limit` packets within reach (semantic.reach's arguments) passing the `content`
    condition, by meaning alone, or (`fused`) by meaning and by their words, the two rankings fused:
    (packet, score, matched) each; and the ids of the packets shared with the viewer."""
    from packets.search import embedding, semantic  # numpy: loaded only with the feature on (meaning)

    within = semantic.reach(**reach)
    wanted = max(limit, CANDIDATES) if fused else limit
    vector = embedding.text_vector(text)
    by_meaning = semantic.nearest(
        vector=vector, within=within, scope_sql=content[0], scope_params=content[1], limit=wanted
    )
    if not fused:
        rows = _rows([packet_id for packet_id, _ in by_meaning])
        best = [(rows[pid], max(score, 0.0), ("semantic",)) for pid, score in by_meaning if pid in rows]
        return best, within.packet_ids
    # Fused, only the ids of each ranking count: the columns are read for the best alone.
    by_words = keyword.ranked(parse(text), *content, wanted)
    best = fusion.fuse(
        {"keyword": [pid for pid, _ in by_words], "semantic": [pid for pid, _ in by_meaning]}, limit=limit
    )
    rows = _rows([f.id for f in best])
    return [(rows[f.id], f.score, f.matched) for f in best if f.id in rows], within.packet_ids


def _rows(packet_ids: list[str]) -> dict[str, Packet]:
    """The packets of `packet_ids` with the columns a hit shows (and their team's name)."""
    if not packet_ids:
        return {}
    packets, teams = keyword.tables()
    sql = (
        f"SELECT {keyword.COLUMNS} FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id "
        f"WHERE p.id IN ({', '.join(['%s'] * len(packet_ids))})"
    )
    return {packet.id: packet for packet in Packet.objects.raw(sql, packet_ids)}


def _hits(viewer, best: list[tuple[Packet, float, tuple[str, ...]]], *, stems: set[str], shared=None) -> list[Hit]:
    """The hits of `best`; `shared`, when given, the ids of every packet shared with the viewer
    (read in this request): who shared a hit is then asked only if one of them was."""
    ids = [packet.id for packet, _, _ in best]
    if shared is not None:
        shared = set(shared)
        ids = [packet_id for packet_id in ids if packet_id in shared]
    senders = shared_by(viewer=viewer, packet_ids=ids) if ids else {}
    return [
        Hit(
            packet=packet,
            team=packet.team_name,
            score=score,
            snippet=[] if packet.held else snippet(packet, stems),
            goal=[(HELD_GOAL, False)] if packet.held else marked(packet.goal, stems),
            shared_by=senders.get(packet.id),
            matched=matched,
        )
        for packet, score, matched in best
    ]


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
