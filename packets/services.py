"""Changes to packets; each function is one transaction."""

import functools
import json
import re
from datetime import UTC

from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from core.errors import BadRequest, Conflict, Forbidden, NotFound
from ltm.protocol.packet import canonical_json, parse_timestamp
from packets import selectors
from packets.models import PAGE_FIELDS, SCAN_FIELDS, Packet, Share, changeable_sql
from packets.scan.findings import findings_of_push
from packets.sharing.services import share_mark_seen, shares_prune
from packets.signals import packet_pushed, packets_changed
from packets.sqlite_writers import write_turn
from teams.events import packet_events_record, push_kind
from teams.models import Team, TeamEvent
from teams.selectors import is_member
from teams.services import team_hold


def _columns(packet: dict) -> dict:
    """The stored columns of a validated packet."""
    return {
        "ltm_version": packet["ltm_version"],
        # The instant in UTC (PostgreSQL refuses offsets past ±15:59); the body keeps the
        # packet's own text.
        "created_at": parse_timestamp(packet["created_at"]).astimezone(UTC),
        "goal": packet["goal"],
        "next_step": packet["next_step"],
        "parent_id": packet.get("parent_id", ""),
        "project": (packet.get("project") or {}).get("name", ""),
        "tags": " " + " ".join(packet.get("tags", [])) + " " if packet.get("tags") else "",
        "body": canonical_json(packet),
    }


# Ids the hub's URLs can always address: letters, digits, "-" and "_" (ULIDs and UUIDs among
# them), never starting with "-" (the client would read it as an option). The schema bounds the
# length (10 to 64).
PACKET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
PACKET_ID_RULE = "a packet id is letters, digits, '-' and '_', starting with a letter or digit (a ULID or a UUID works)"


def packet_push(*, actor, packet: dict, team=None) -> Packet:
    """Store a validated packet in the actor's personal scope or in `team`; returns it.

    A re-push by the packet's creator into the same scope replaces it; a re-push into another
    scope is refused (moving is packet_move), and so is an id that belongs to someone else,
    without revealing anything about that packet.

    One statement does it (INSERT ... ON CONFLICT DO UPDATE ... WHERE the creator and scope are
    the same), so a personal push is one round trip, atomic on its own, and safe against a
    concurrent push of the same id; a push into a team writes its line of the team's activity log
    in the same transaction. A team deleted meanwhile fails the statement's foreign key: 404.
    """
    if not PACKET_ID.fullmatch(packet["id"]):
        raise BadRequest(f"{PACKET_ID_RULE}; got {packet['id'][:64]!r}")
    stored = Packet(id=packet["id"], owner=actor, team=team, pushed_at=timezone.now(), **_columns(packet))
    findings = findings_of_push(packet, team=team)  # 422 here when the policy refuses
    if findings is not None:
        stored.record_scan(findings, stored.pushed_at)
    try:
        replaced_or_created = _upsert(stored, actor=actor)
    except IntegrityError:
        if team is not None:
            raise NotFound("team not found") from None
        raise
    if not replaced_or_created:
        _refuse_push_over(Packet.objects.select_related("team").get(pk=stored.pk), actor=actor)
    stored._state.adding = False
    return stored


# What a re-push replaces: the packet and what the secret scan says of it (an earlier clearing is
# forgotten), not its owner or scope; its public page only when the scan quarantines it, which
# takes the page down (Packet.record_scan).
_REPLACED = [
    "ltm_version",
    "created_at",
    "goal",
    "next_step",
    "parent_id",
    "project",
    "tags",
    "body",
    "pushed_at",
    "embedding",  # none: the new text waits to be embedded (packets.search.vector_queue)
    *SCAN_FIELDS,
]


def _upsert(packet: Packet, *, actor) -> bool:
    """Insert the packet, or replace the stored one when the same creator pushes it into the same
    scope, log a team packet's push and tell packets_changed, in one transaction; False when the
    id is taken otherwise."""
    fields, sql = _upsert_statement(connection.vendor)
    values = [field.get_db_prep_save(getattr(packet, field.attname), connection) for field in fields]
    with write_turn(connection), transaction.atomic():
        with connection.cursor() as cursor:
            # SQLite has no xmax: its transactions take the write lock when they begin (IMMEDIATE),
            # so what this read finds is what the upsert meets. Plain SQL, as the upsert: no ORM
            # compilation on every push.
            existed = connection.vendor == "sqlite" and _exists(cursor, packet.pk)
            cursor.execute(sql, values)
            row = cursor.fetchone()
        if row is None:
            return False
        inserted = row[1] if connection.vendor == "postgresql" else not existed
        lines = [(push_kind(inserted=inserted, quarantined=packet.quarantined), packet.team_id, packet)]
        packet_events_record(actor=actor, lines=lines)
        packet_pushed.send(sender=Packet, packet=packet, actor=actor)
        packets_changed.send(sender=Packet, actor=actor, lines=lines)
    return True


def _exists(cursor, packet_id: str) -> bool:
    cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(Packet._meta.db_table)} WHERE id = %s", [packet_id])
    return cursor.fetchone() is not None


@functools.cache
def _upsert_statement(vendor: str) -> tuple[list, str]:
    """The fields _upsert writes and its SQL, written once per database vendor (every push runs it).
    On PostgreSQL it also returns whether the row was inserted (`xmax = 0`) rather than replaced,
    for the kind of a team push's line."""
    fields = [Packet._meta.get_field(name) for name in ["id", "owner", "team", *_REPLACED]]
    table = connection.ops.quote_name(Packet._meta.db_table)
    columns = [connection.ops.quote_name(field.column) for field in fields]
    same_team = "IS NOT DISTINCT FROM" if vendor == "postgresql" else "IS"
    replaced = ", ".join(f"{column} = excluded.{column}" for column in columns[3:])
    quarantined = connection.ops.quote_name(Packet._meta.get_field("quarantined").column)
    for name in PAGE_FIELDS:
        column = connection.ops.quote_name(Packet._meta.get_field(name).column)
        replaced += f", {column} = CASE WHEN excluded.{quarantined} THEN NULL ELSE {table}.{column} END"
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT (id) DO UPDATE SET {replaced} "
        f"WHERE {table}.owner_id = excluded.owner_id AND {table}.team_id {same_team} excluded.team_id "
        f"RETURNING id{', xmax = 0' if vendor == 'postgresql' else ''}"
    )
    return fields, sql


def packet_read(*, viewer, packet_id: str) -> Packet:
    """The packet as its reader opens it (a pull, its page, the `show` tool): packets.selectors'
    packet_get, and a share of it with the reader becomes seen."""
    packet = selectors.packet_get(viewer=viewer, packet_id=packet_id)
    if packet.share_unseen:
        share_mark_seen(viewer=viewer, packet_id=packet_id)
    return packet


def _refuse_push_over(existing: Packet, *, actor) -> None:
    if existing.owner_id != actor.pk and Share.objects.filter(packet_id=existing.pk, recipient_id=actor.pk).exists():
        raise Forbidden(f"packet {existing.pk} was shared with you to read; push your own copy under a new id")
    if existing.owner_id != actor.pk:
        raise Conflict(f"packet id {existing.pk} is already taken on this hub; give your packet a new id")
    # A re-push into another scope would silently take a packet away from a team (or hand a
    # personal one to it): moving is a deliberate act, on the dashboard.
    raise Conflict(
        f"packet {existing.pk} is {_scope_phrase(existing.team)}; push it there, or move it on the hub's packet page"
    )


def _scope_phrase(team) -> str:
    if team is None:
        return "one of your personal packets (ltm push without -t)"
    return f"in team {team.name} (ltm push -t {team.name})"


def _packet_locked_for_move(*, actor, packet_id: str) -> Packet:
    """The packet, locked, if `actor` may move it (Packet.objects.movable_by). Someone who can see
    the packet but may not move it gets 403; anyone else 404."""
    packet = Packet.objects.select_for_update(of=("self",)).select_related("team").filter(pk=packet_id).first()
    if packet is None:
        raise NotFound("packet not found")
    if Packet.objects.movable_by(actor).filter(pk=packet_id).exists():
        return packet
    refuse_change(actor=actor, packet_id=packet_id, refusal="only the packet's creator can move it")


CHANGE_REFUSED = "only the packet's creator or the team owner (or an admin) can do this"


def refuse_change(*, actor, packet_id: str, refusal: str = CHANGE_REFUSED):
    """After a change found nothing it may change: 403 for someone who can see the packet, else
    404 (nothing is revealed)."""
    if Packet.objects.visible_to(actor).filter(pk=packet_id).exists():
        raise Forbidden(refusal)
    raise NotFound("packet not found")


# Delete, publish and unpublish are each one conditional statement over the packets `actor` may
# change (CHANGE: their own, while in the packet's team, and every packet of a team they own or
# administer), and for a team packet a line of the team's activity log (teams.events) in the same
# transaction.

PACKETS = Packet._meta.db_table


def changed_and_logged(
    sql: str, params: list, *, actor, kind: str, fresh_only: bool = False, first: tuple | None = None
) -> list[Packet]:
    """Run `sql`, a DELETE or UPDATE of packets ... RETURNING id, team_id, owner_id, goal, quarantined (and `fresh`, when
    `fresh_only`: log only the rows where it is true), and log `kind` for each team packet it
    changed, in one transaction, after `first` (sql, params) if given. Returns the changed rows."""
    with transaction.atomic():
        if first is not None:
            with connection.cursor() as cursor:
                cursor.execute(*first)
        changed = list(Packet.objects.raw(sql, params))
        lines = [(kind, packet.team_id, packet) for packet in changed if not fresh_only or packet.fresh]
        packet_events_record(actor=actor, lines=lines)
        packets_changed.send(sender=Packet, actor=actor, lines=lines)
    return changed


def packet_delete(*, actor, packet_id: str) -> None:
    """Delete the packet and its shares. On PostgreSQL the database deletes the shares with the
    packet (migration 0010); SQLite does not, so they go first, in a statement of their own."""
    # Plain SQL: QuerySet.delete() would read the packet and its shares before deleting them.
    may_change, params = changeable_sql(PACKETS, actor)
    shares_first = None
    if connection.vendor == "sqlite":
        shares_first = (
            f"DELETE FROM {Share._meta.db_table} WHERE packet_id IN "
            f"(SELECT id FROM {PACKETS} WHERE id = %s AND {may_change})",
            [packet_id, *params],
        )
    deleted = changed_and_logged(
        f"DELETE FROM {PACKETS} WHERE id = %s AND {may_change} RETURNING id, team_id, owner_id, goal, quarantined",
        [packet_id, *params],
        actor=actor,
        kind=TeamEvent.PACKET_DELETED,
        first=shares_first,
    )
    if not deleted:
        refuse_change(actor=actor, packet_id=packet_id)


@transaction.atomic
def packet_move(*, actor, packet_id: str, team) -> Packet:
    """Move a packet between the creator's personal scope and one of the creator's teams
    (`team=None`: personal). Scope is metadata: the packet's JSON is not touched."""
    if team is not None:
        team_hold(team_id=team.pk)
    packet = _packet_locked_for_move(actor=actor, packet_id=packet_id)
    if team is not None and not is_member(viewer=actor, team_id=team.pk):
        raise NotFound("team not found")
    before = packet.team_id
    packet.team = team
    # Scanned under the new place's policy, as a push there would be (422 when it refuses).
    findings = findings_of_push(json.loads(packet.body), team=team)
    scanned = [] if findings is None else packet.record_scan(findings, timezone.now())
    # Each process's matrix of vectors (packets.search.matrix) re-reads a row written since its
    # last look: the packet's row follows it to its new place.
    packet.embedded_at = timezone.now() if packet.embedded_at else None
    packet.save(update_fields=["team", "embedded_at", *scanned])
    if before != packet.team_id:
        moved = [(TeamEvent.PACKET_MOVED_OUT, before, packet), (TeamEvent.PACKET_MOVED_IN, packet.team_id, packet)]
        packet_events_record(actor=actor, lines=moved)
        packets_changed.send(sender=Packet, actor=actor, lines=moved)
        # A share its sender may no longer make ends (logged where the packet was).
        shares_prune(packet_ids=[packet.pk], actor=actor, left_team_id=before)
    return packet


@transaction.atomic
def packets_hand_to_teams(*, user, **_signal) -> int:
    """Before `user` leaves the hub: the packets they pushed to teams stay with those teams, owned
    of record by each team's owner, so leaving does not take shared knowledge away. Connected to
    accounts' `user_deleting` signal. Returns how many packets changed hands."""
    team_owner = Team.objects.filter(pk=OuterRef("team_id")).values("owner_id")[:1]
    return Packet.objects.filter(owner=user, team__isnull=False).update(owner_id=Subquery(team_owner))
