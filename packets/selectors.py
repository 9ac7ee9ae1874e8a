"""Reads of packets, always scoped by the viewer so nobody sees what they may not: the list, a
pull, a thread, the dashboard's list and a packet's page. Search, export, shares and public pages
read in their own subpackages (packets.search, packets.export, packets.sharing, packets.publishing)."""

import functools
from typing import NamedTuple

from django.db import connection

from core.errors import NotFound
from core.timestamps import rfc3339_column
from packets.models import (
    HELD_GOAL,
    Packet,
    Share,
    held_out,
    held_q,
    held_refusal,
    held_sql,
    personal_sql,
    readable_sql,
    team_readable_sql,
)
from teams.models import Team
from teams.second_factor import closed_team_refusal
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
    created_at = rfc3339_column("created_at", connection.vendor)
    # The limit is written into the statement, not bound: PostgreSQL cannot know a bound LIMIT when
    # it weighs a prepared statement's generic plan, guesses a tenth of the table, and so plans
    # the list again on every call. A limit is a whole number the wire API has checked.
    sql = (
        f"SELECT id, {created_at}, goal, {held} FROM {packets} WHERE {scope} "
        f"ORDER BY created_at DESC, id DESC LIMIT {int(limit)}"
    )
    return sql, [*held_params, *params]


def packet_list(*, viewer, team_name: str | None = None, limit: int = DEFAULT_LIMIT) -> list[PacketSummary]:
    """The list the wire API answers: one query, plus a second only when a team's list comes out
    empty, to tell a team with no packets from one the viewer is not in (404) or one closed to them
    for want of a second factor (403, teams.second_factor).

    Plain SQL into plain rows, without the ORM's query and model building: every list asks it
    (what that saves is measured in bench/README.md)."""
    sql, params = newest_first_query(viewer=viewer, team_name=team_name, limit=limit)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    packets = [
        PacketSummary(packet_id, created_at, HELD_GOAL, True) if held else PacketSummary(packet_id, created_at, goal)
        for packet_id, created_at, goal, held in rows
    ]
    if not packets and team_name is not None:
        closed_team_refusal(viewer=viewer, team=team_get_for_member(viewer=viewer, name=team_name))
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
    scan holds back from the viewer (HELD) is packets.models.Held (409), whoever asks for its
    content: a pull, its page, a download, the MCP tools.

    One plain SQL statement with the rights in it, without the ORM's query building: every pull
    asks this (what that saves is measured in bench/README.md)."""
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
    (a search by words is packets.search.selectors.search_packets).

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


# The dashboard's packet page.


def packet_viewer_rights(*, viewer, packet: Packet) -> dict:
    """What the viewer may do with a packet, for the buttons of its page: "change" (delete,
    publish), "move", "share" (with a person by name) and "clear_findings" (vouch for what the
    secret scan found), as packets.models rules them (and packets.services, packets.sharing and
    packets.scan enforce them). Clearing findings is a change (CLEAR is CHANGE)."""
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


# Threads: packets linked by parent_id. A thread is what the viewer may read of it: a packet the
# viewer cannot read breaks the chain there. Recursive CTEs walk it in one query on SQLite and
# PostgreSQL; UNION (not UNION ALL) drops rows already produced, so a cycle ends the walk instead
# of looping, and a parent_id that names no packet simply has no match.


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
