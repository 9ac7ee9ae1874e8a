"""Reads of packets, always scoped by the viewer so nobody sees what they may not."""

import functools
from typing import NamedTuple

from django.db import connection
from django.db.models import Q
from django.urls import reverse

from core.errors import NotFound
from core.links import external_url
from core.timestamps import rfc3339_column
from packets import search
from packets.findings import held_refusal
from packets.models import (
    HELD_GOAL,
    Packet,
    Share,
    content_readable_sql,
    held_out,
    held_q,
    held_sql,
    personal_sql,
    readable_sql,
    team_readable_sql,
)
from teams.models import Team
from teams.selectors import team_get_for_member

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


class PacketSummary(NamedTuple):
    """A line of the list: what the wire's list carries of a packet, as wire() writes it for
    GET /v1/packets and the MCP `packets` tool (PacketListItemSerializer describes it)."""

    id: str
    created_at: str  # as the wire writes an instant (core.timestamps.rfc3339)
    goal: str  # HELD_GOAL for a packet the secret scan holds back from the viewer
    held: bool = False

    def wire(self) -> dict:
        """The line as JSON: `held` only on a held packet."""
        line = {"id": self.id, "created_at": self.created_at, "goal": self.goal}
        return {**line, "held": True} if self.held else line


def newest_first_query(*, viewer, team_name: str | None = None, limit: int = DEFAULT_LIMIT):
    """(sql, params) for the viewer's personal packets, or those of the team named `team_name` if
    the viewer is a member, newest first, straight off an index (see Packet.Meta.indexes): id,
    created_at, goal and whether it is held from the viewer (HELD). The team is a scalar subquery,
    so the planner reads that one team's index in order."""
    packets = Packet._meta.db_table
    if team_name is None:
        scope, params = personal_sql(packets, viewer)
    else:
        scope, params = team_readable_sql(packets, viewer, team_name)
    held, held_params = held_sql(packets, viewer)
    created_at, _ = rfc3339_column("created_at", connection.vendor)
    sql = (
        f"SELECT id, {created_at}, goal, {held} FROM {packets} WHERE {scope} ORDER BY created_at DESC, id DESC LIMIT %s"
    )
    return sql, [*held_params, *params, limit]


def packet_list(*, viewer, team_name: str | None = None, limit: int = DEFAULT_LIMIT) -> list[PacketSummary]:
    """The list the wire API answers: one query, plus a second only when a team's list comes out
    empty, to tell a team with no packets from one the viewer is not in (404).

    Plain SQL into plain rows: every list asks it, and building the query and 50 model instances
    with the ORM cost more than running it."""
    sql, params = newest_first_query(viewer=viewer, team_name=team_name, limit=limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    _, wire_instant = rfc3339_column("created_at", connection.vendor)
    packets = [
        PacketSummary(packet_id, wire_instant(created_at), HELD_GOAL, True)
        if held
        else PacketSummary(packet_id, wire_instant(created_at), goal)
        for packet_id, created_at, goal, held in rows
    ]
    if not packets and team_name is not None:
        team_get_for_member(viewer=viewer, name=team_name)
    return packets


@functools.cache
def _column_reader(field_name: str):
    """What the ORM does to a value of a packet's field read from the database (SQLite hands back
    instants as text, PostgreSQL as datetimes), for rows read with a plain cursor."""
    column = Packet._meta.get_field(field_name).get_col(Packet._meta.db_table)
    converters = connection.ops.get_db_converters(column) + column.get_db_converters(connection)

    def read(value):
        for converter in converters:
            value = converter(value, column, connection)
        return value

    return read


PULL_FIELDS = ("id", "owner_id", "team_id", "body", "public_slug", "published_at")


def packet_get(*, viewer, packet_id: str) -> Packet:
    """The packet if the viewer may read it (READ); only the fields a pull needs are loaded (the
    others load on first use). Its `share_unseen` says whether it was shared with the viewer and
    they have not read it since (packets.services.packet_read marks it seen). A packet the secret
    scan holds back from the viewer (HELD) is packets.findings.Held (409), whoever asks for its
    content: a pull, its page, a download, the MCP tools.

    One plain SQL statement with the rights in it: every pull asks this, and building the same
    query with the ORM (or a raw queryset) cost more than running it."""
    packets, shares = Packet._meta.db_table, Share._meta.db_table
    readable, params = readable_sql(packets, viewer)
    held, held_params = held_sql(packets, viewer)
    unseen = (
        f"EXISTS (SELECT 1 FROM {shares} s WHERE s.packet_id = {packets}.id AND s.recipient_id = %s "
        "AND s.seen_at IS NULL)"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(PULL_FIELDS)}, {unseen}, {held} FROM {packets} WHERE id = %s AND {readable}",
            [viewer.pk, *held_params, packet_id, *params],
        )
        row = cursor.fetchone()
    if row is None:
        raise NotFound("packet not found")
    *fields, published_at, share_unseen, is_held = row
    if is_held:
        raise held_refusal(packet_id, Packet.objects.filter(pk=packet_id).values_list("findings", flat=True)[0])
    packet = Packet.from_db(connection.alias, PULL_FIELDS, [*fields, _column_reader("published_at")(published_at)])
    packet.share_unseen = bool(share_unseen)
    return packet


def packet_ids_readable(*, viewer, packet_ids, **_signal) -> set[str]:
    """Which of `packet_ids` the viewer may read (READ), held ones included: they may know those
    exist. Connected to teams' `packets_readable` signal (a team's log links these)."""
    return set(Packet.objects.visible_to(viewer).filter(pk__in=list(packet_ids)).values_list("pk", flat=True))


def packet_known(*, viewer, packet_id: str) -> bool:
    """Whether the viewer may know the packet exists (READ): held from them or not."""
    return Packet.objects.visible_to(viewer).filter(pk=packet_id).exists()


def packet_held_heading(*, viewer, packet_id: str) -> Packet:
    """What the page of a packet held back from the viewer shows of it: held out (HELD_GOAL for its
    goal), with its team and creator. NotFound as for packet_get."""
    packet = Packet.objects.visible_to(viewer).with_held(viewer).select_related("team", "owner")
    packet = packet.filter(pk=packet_id).first()
    if packet is None:
        raise NotFound("packet not found")
    return packet


def packet_search(*, viewer, personal: bool = False, team_name: str = "", tag: str = "", project: str = ""):
    """The dashboard's list: what the viewer may see, newest first, narrowed by the filters
    (a search by words is packet_text_search).

    `personal` keeps only the viewer's own personal packets (not those shared with them);
    `team_name` only that team's (a team the viewer is not in simply yields nothing).
    """
    packets = Packet.objects.visible_to(viewer).with_held(viewer).select_related("team", "owner")
    if personal:
        packets = packets.filter(team__isnull=True, owner_id=viewer.pk)  # not what others shared
    elif team_name:
        packets = packets.filter(team__name=team_name)
    if tag or project:  # they read the content, which a held packet keeps from the viewer
        packets = packets.exclude(held_q(viewer))
    if tag:
        # Tags are stored space-padded (" a b "), so a whole-word match is a padded substring.
        packets = packets.filter(tags__contains=f" {tag.strip()} ")
    if project:
        packets = packets.filter(project=project.strip())
    return packets.order_by("-created_at", "-id")


# Public pages: the viewer is anyone holding the link, so being published is the scope.


def packet_get_published(*, slug: str) -> Packet:
    # A packet the secret scan holds back has no public page until it is fixed or cleared.
    packet = (
        Packet.objects.select_related("owner").filter(public_slug=slug, quarantined=False).first() if slug else None
    )
    if packet is None:
        raise NotFound("this link is no longer valid")
    return packet


def _published_chain_partners(packet: Packet):
    """Published packets that may appear in `packet`'s chain: the same creator's or the same
    team's. Naming someone else's packet as parent_id does not attach a stranger's page to it."""
    same_scope = Q(owner_id=packet.owner_id)
    if packet.team_id:
        same_scope |= Q(team_id=packet.team_id)
    return Packet.objects.filter(same_scope, public_slug__isnull=False, quarantined=False)


def packet_published_parent(*, packet: Packet) -> Packet | None:
    if not packet.parent_id:
        return None
    return _published_chain_partners(packet).filter(pk=packet.parent_id).first()


def packet_published_children(*, packet: Packet) -> list[Packet]:
    """Published packets that continue `packet`, oldest first."""
    children = _published_chain_partners(packet).filter(parent_id=packet.pk)
    return list(children.order_by("created_at", "id").only("id", "goal", "public_slug", "created_at"))


# The dashboard's packet page.


def packet_viewer_rights(*, viewer, packet: Packet) -> dict:
    """What the viewer may do with a packet, for the buttons of its page: "change" (delete,
    publish), "move", "share" (with a person by name) and "clear_findings" (vouch for what the
    secret scan found), as packets.models rules them (and packets.services, packets.shares and
    packets.findings enforce them). Clearing findings is a change (CLEAR is CHANGE)."""
    may_change = Packet.objects.changeable_by(viewer).filter(pk=packet.pk).exists()
    may_move = may_change and Packet.objects.movable_by(viewer).filter(pk=packet.pk).exists()
    may_share = Packet.objects.shareable_by(viewer).filter(pk=packet.pk).exists()
    return {"change": may_change, "move": may_move, "share": may_share, "clear_findings": may_change}


def packet_visible_chain(*, viewer, packet: Packet) -> tuple[Packet | None, list[Packet]]:
    """The packet's parent and children among the packets the viewer may see (a held one named by
    HELD_GOAL)."""
    visible = Packet.objects.visible_to(viewer).with_held(viewer).only("id", "goal", "created_at")
    parent = visible.filter(pk=packet.parent_id).first() if packet.parent_id else None
    children = list(visible.filter(parent_id=packet.pk).order_by("created_at", "id"))
    return parent, children


def public_url(request, packet: Packet) -> str:
    """The absolute URL of a published packet's page."""
    return external_url(request, reverse("packet-public", args=[packet.public_slug]))


# Threads: packets linked by parent_id. A thread is what the viewer may read of it: a packet the
# viewer cannot read breaks the chain there. Recursive CTEs walk it in one query on SQLite and
# PostgreSQL; UNION (not UNION ALL) drops rows already produced, so a cycle ends the walk instead
# of looping, and a parent_id that names no packet simply has no match.


def _content_scope_sql(alias: str, viewer, team) -> tuple[str, list]:
    """Whose content the viewer may read (READ, not HELD), of all their packets or only of `team`'s
    when a team is given (nothing of a team whose packets they may not read)."""
    scope, params = content_readable_sql(alias, viewer)
    if team is not None:
        return f"({alias}.team_id = %s AND {scope})", [team.pk, *params]
    return scope, params


def packet_thread(*, viewer, packet_id: str) -> list[dict]:
    """The thread that holds the packet, as far as the viewer may read it: its ancestors up to the
    root, then every descendant of those (the root's whole tree), oldest first. Each item is
    {id, parent_id, created_at, goal, team}, and `held` (its goal HELD_GOAL) on a packet the secret
    scan holds back from the viewer. NotFound as for packet_get."""
    packets, teams = Packet._meta.db_table, Team._meta.db_table
    readable, params = readable_sql("p", viewer)
    held, held_params = held_sql("p", viewer)
    sql = (
        "WITH RECURSIVE up(id, parent_id) AS ("
        f"  SELECT p.id, p.parent_id FROM {packets} p WHERE p.id = %s AND {readable}"
        f"  UNION SELECT p.id, p.parent_id FROM {packets} p JOIN up ON p.id = up.parent_id WHERE {readable}"
        "), down(id) AS ("
        "  SELECT id FROM up"
        f"  UNION SELECT p.id FROM {packets} p JOIN down ON p.parent_id = down.id WHERE {readable}"
        ") "
        f"SELECT p.id, p.parent_id, p.created_at, p.goal, t.name AS team_name, {held} AS held "
        f"FROM {packets} p LEFT JOIN {teams} t ON t.id = p.team_id WHERE p.id IN (SELECT id FROM down) "
        "ORDER BY p.created_at, p.id"
    )
    rows = [held_out(row) for row in Packet.objects.raw(sql, [packet_id, *params, *params, *params, *held_params])]
    if not rows:
        raise NotFound("packet not found")
    return [_thread_item(row) for row in rows]


def _thread_item(row: Packet) -> dict:
    item = {
        "id": row.id,
        "parent_id": row.parent_id or None,
        "created_at": row.created_at,
        "goal": row.goal,
        "team": row.team_name,
    }
    return {**item, "held": True} if row.held else item


EXPORT_BATCH = 500  # packets read at a time: the web process holds no more than this many


class ExportRow(NamedTuple):
    id: str
    body: str
    parent_id: str
    team_name: str | None


def packets_for_export(*, viewer, team=None, batch: int = EXPORT_BATCH) -> "ExportRows":
    """Every packet the viewer may read (or only `team`'s), threads together: threads in the order
    their first packet was created, each thread's packets oldest first; a thread starts at a
    packet whose parent is not in the export, and packets no start leads to (a parent_id cycle)
    come last, oldest first. A packet the secret scan holds back from the viewer (HELD) is left
    out. Iterate the result for ExportRows; close it when done."""
    packets = Packet._meta.db_table
    scope, scope_params = _content_scope_sql("p", viewer, team)
    parent_scope, parent_params = _content_scope_sql("q", viewer, team)
    order_sql = (
        "WITH RECURSIVE tree(id, created_at, start_created_at, start_id) AS ("
        f"  SELECT p.id, p.created_at, p.created_at, p.id FROM {packets} p WHERE {scope} AND NOT EXISTS "
        f"    (SELECT 1 FROM {packets} q WHERE q.id = p.parent_id AND {parent_scope})"
        "  UNION SELECT p.id, p.created_at, tree.start_created_at, tree.start_id "
        f"  FROM {packets} p JOIN tree ON p.parent_id = tree.id WHERE {scope}"
        ") "
        "SELECT id FROM ("
        "  SELECT id, 0 AS unreached, start_created_at, start_id, created_at FROM tree "
        "  UNION ALL "
        f" SELECT p.id, 1, p.created_at, p.id, p.created_at FROM {packets} p WHERE {scope} "
        "  AND NOT EXISTS (SELECT 1 FROM tree WHERE tree.id = p.id)"
        ") ordered ORDER BY unreached, start_created_at, start_id, created_at, id"
    )
    return ExportRows(order_sql, [*scope_params, *parent_params, *scope_params, *scope_params], batch)


class ExportRows:
    """The packets of an export, in order. One query orders the ids (a recursive walk of every
    thread, sorted by the database) and is read through a server-side cursor (PostgreSQL; SQLite
    steps through its result); the packets themselves are read `batch` ids at a time, so memory
    stays flat however many there are.

    The ordering query, the expensive part, runs when this is made: a failure there is an error
    answer, not a download cut short. Django calls close() when the response is done."""

    def __init__(self, order_sql: str, params: list, batch: int):
        self.batch = batch
        self.ordered = connection.chunked_cursor()
        try:
            self.ordered.execute(order_sql, params)
        except Exception:
            self.ordered.close()
            raise

    def __iter__(self):
        packets, teams = Packet._meta.db_table, Team._meta.db_table
        with connection.cursor() as cursor:
            while ids := [row[0] for row in self.ordered.fetchmany(self.batch)]:
                cursor.execute(
                    f"SELECT p.id, p.body, p.parent_id, t.name FROM {packets} p "
                    f"LEFT JOIN {teams} t ON t.id = p.team_id WHERE p.id IN ({', '.join(['%s'] * len(ids))})",
                    ids,
                )
                found = {row[0]: ExportRow(*row) for row in cursor.fetchall()}
                yield from (found[packet_id] for packet_id in ids if packet_id in found)  # deleted meanwhile: gone
        self.close()

    def close(self) -> None:
        self.ordered.close()


def packet_export_count(*, viewer, team=None) -> int:
    """How many packets an export holds (for the client's progress bar)."""
    packets = Packet.objects.content_visible_to(viewer)
    return (packets.filter(team=team) if team is not None else packets).count()


# Full-text search: packets/search.py does the work on either database, scoped by the viewer as
# everything here (its search_packets is the selector).

SEARCH_DEFAULT_LIMIT = search.DEFAULT_LIMIT
SEARCH_MAX_LIMIT = search.MAX_LIMIT
packet_text_search = search.search_packets
