"""Changes to packets; each function is one transaction."""

import functools
import json
import re
import secrets
from datetime import UTC

from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from core.errors import BadRequest, Conflict, Forbidden, NotFound
from core.sqlite_writers import write_turn
from ltm.protocol.packet import canonical_json, parse_timestamp
from packets import selectors
from packets.findings import findings_of_push, quarantine_refusal
from packets.models import SCAN_FIELDS, Packet, Share, changeable_sql
from packets.shares import share_mark_seen, shares_prune
from teams.events import kind_sql, packet_event_record, packet_events_params, packet_events_sql
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
    the same), so a push is one round trip, atomic on its own, and safe against a concurrent push
    of the same id. A team deleted meanwhile fails the statement's foreign key: 404.
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
# forgotten), not its owner, scope or public page.
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
    *SCAN_FIELDS,
]


def _upsert(packet: Packet, *, actor) -> bool:
    """Insert the packet, or replace the stored one when the same creator pushes it into the same
    scope, and log a team packet's push; False when the id is taken otherwise."""
    fields, sql = _upsert_statement(connection.vendor)
    values = [field.get_db_prep_save(getattr(packet, field.attname), connection) for field in fields]
    if connection.vendor == "postgresql":
        values += packet_events_params(actor=actor, at=packet.pushed_at)
    # SQLite writes the line in a second statement (the two are not one transaction, as for a
    # delete below), so with several web workers two racing pushes of one new id may both be
    # logged as pushed.
    repushed = connection.vendor == "sqlite" and packet.team_id and Packet.objects.filter(pk=packet.pk).exists()
    with write_turn(connection), connection.cursor() as cursor:
        cursor.execute(sql, values)
        if cursor.fetchone() is None:
            return False
    if connection.vendor == "sqlite":
        kind = TeamEvent.PACKET_REPUSHED if repushed else TeamEvent.PACKET_PUSHED
        kind = TeamEvent.PACKET_FLAGGED if packet.quarantined else kind
        packet_event_record(actor=actor, kind=kind, packet=packet, team_id=packet.team_id)
    return True


@functools.cache
def _upsert_statement(vendor: str) -> tuple[list, str]:
    """The fields _upsert writes and its SQL, written once per database vendor (every push runs it).
    On PostgreSQL the statement also writes a team packet's line of the activity log: flagged when
    the secret scan quarantined it, else `xmax = 0` tells a row just inserted (pushed) from one
    replaced (re-pushed)."""
    fields = [Packet._meta.get_field(name) for name in ["id", "owner", "team", *_REPLACED]]
    table = connection.ops.quote_name(Packet._meta.db_table)
    columns = [connection.ops.quote_name(field.column) for field in fields]
    same_team = "IS NOT DISTINCT FROM" if vendor == "postgresql" else "IS"
    replaced = ", ".join(f"{column} = excluded.{column}" for column in columns[3:])
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))}) "
        f"ON CONFLICT (id) DO UPDATE SET {replaced} "
        f"WHERE {table}.owner_id = excluded.owner_id AND {table}.team_id {same_team} excluded.team_id "
        "RETURNING id"
    )
    if vendor == "postgresql":
        kind = (
            f"CASE WHEN quarantined THEN {kind_sql(TeamEvent.PACKET_FLAGGED)} "
            f"WHEN inserted THEN {kind_sql(TeamEvent.PACKET_PUSHED)} ELSE {kind_sql(TeamEvent.PACKET_REPUSHED)} END"
        )
        sql = (
            f"WITH pushed AS ({sql}, team_id, goal, quarantined, xmax = 0 AS inserted), "
            f"logged AS ({packet_events_sql(changed='pushed', kind=kind)}) SELECT id FROM pushed"
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
    """The packet, locked, if `actor` may move it. Someone who can see the packet but may not move
    it gets 403; anyone else 404."""
    packet = Packet.objects.select_for_update(of=("self",)).select_related("team").filter(pk=packet_id).first()
    if packet is None:
        raise NotFound("packet not found")
    if packet.movable_by(actor):
        return packet
    _refuse_change(actor=actor, packet_id=packet_id, refusal="only the packet's creator can move it")


CHANGE_REFUSED = "only the packet's creator or the team owner (or an admin) can do this"


def _refuse_change(*, actor, packet_id: str, refusal: str = CHANGE_REFUSED):
    """After a change found nothing it may change: 403 for someone who can see the packet, else
    404 (nothing is revealed)."""
    if Packet.objects.visible_to(actor).filter(pk=packet_id).exists():
        raise Forbidden(refusal)
    raise NotFound("packet not found")


# Delete, publish and unpublish are each one conditional statement over the packets `actor` may
# change (their own, and every packet of a team they own or administer): atomic on its own and
# one round trip. A team packet's change (and a push) also writes a line of the team's activity
# log through teams.events: in the same statement on PostgreSQL (a data-modifying WITH), in a
# second one on SQLite (which has neither that nor concurrent writers).

_PACKETS = Packet._meta.db_table


def _changed_and_logged(sql: str, params: list, *, actor, kind: str, fresh_only: bool = False) -> list[Packet]:
    """Run `sql`, a DELETE or UPDATE of packets ... RETURNING id, team_id, goal (and `fresh`, when
    `fresh_only`: log only the rows where it is true), and log `kind` for each team packet it
    changed. Returns the changed rows."""
    if connection.vendor == "postgresql":
        logged = "fresh" if fresh_only else "TRUE"
        sql = (
            f"WITH changed AS ({sql}), "
            f"logged AS ({packet_events_sql(changed='changed', kind=kind_sql(kind), where=logged)}) "
            "SELECT * FROM changed"
        )
        return list(Packet.objects.raw(sql, [*params, *packet_events_params(actor=actor, at=timezone.now())]))
    changed = list(Packet.objects.raw(sql, params))
    for packet in changed:
        if not fresh_only or packet.fresh:
            packet_event_record(actor=actor, kind=kind, packet=packet, team_id=packet.team_id)
    return changed


def packet_delete(*, actor, packet_id: str) -> None:
    """Delete the packet and its shares. On PostgreSQL the database deletes the shares with the
    packet (migration 0010); SQLite does not, so they go first, in a statement of their own."""
    # QuerySet.delete() would wrap the one DELETE in a transaction (two more round trips).
    may_change, params = changeable_sql(_PACKETS, actor)
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {Share._meta.db_table} WHERE packet_id IN "
                f"(SELECT id FROM {_PACKETS} WHERE id = %s AND {may_change})",
                [packet_id, *params],
            )
    deleted = _changed_and_logged(
        f"DELETE FROM {_PACKETS} WHERE id = %s AND {may_change} RETURNING id, team_id, goal",
        [packet_id, *params],
        actor=actor,
        kind=TeamEvent.PACKET_DELETED,
    )
    if not deleted:
        _refuse_change(actor=actor, packet_id=packet_id)


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
    scanned = _scanned_for(packet, team=team)  # the new place's policy: 422 when it refuses
    packet.save(update_fields=["team", *scanned])
    if before != packet.team_id:
        packet_event_record(actor=actor, kind=TeamEvent.PACKET_MOVED_OUT, packet=packet, team_id=before)
        packet_event_record(actor=actor, kind=TeamEvent.PACKET_MOVED_IN, packet=packet, team_id=packet.team_id)
        # A share its sender may no longer make ends (logged where the packet was).
        shares_prune(packet_ids=[packet.pk], actor=actor, left_team_id=before)
    return packet


def _scanned_for(packet: Packet, *, team) -> list[str]:
    """Scan a packet moving to `team` (or personal) under that place's policy, as a push there
    would; the fields that changed (the findings, when they differ from those stored)."""
    findings = findings_of_push(json.loads(packet.body), team=team)
    if findings is None or findings == packet.findings:
        return []
    packet.findings, packet.scanned_at, packet.quarantined = findings, timezone.now(), bool(findings)
    packet.findings_cleared_by, packet.findings_cleared_at, packet.findings_clear_reason = None, None, ""
    return [
        "findings",
        "scanned_at",
        "quarantined",
        "findings_cleared_by",
        "findings_cleared_at",
        "findings_clear_reason",
    ]


def _new_public_slug() -> str:
    """24 URL-safe characters (144 random bits): the page's URL cannot be guessed."""
    return secrets.token_urlsafe(18)


def packet_publish(*, actor, packet_id: str) -> Packet:
    """Give the packet a public page (same rights as delete). Publishing a published packet
    keeps its slug, so the URL already shared stays the same (and writes no log line). A packet
    the secret scan quarantined is refused (409, naming the findings)."""
    now = timezone.now()
    may_change, params = changeable_sql(_PACKETS, actor)
    published = _changed_and_logged(
        f"UPDATE {_PACKETS} SET public_slug = COALESCE(public_slug, %s), published_at = COALESCE(published_at, %s) "
        f"WHERE id = %s AND NOT quarantined AND {may_change} "
        "RETURNING id, team_id, goal, public_slug, published_at, published_at = %s AS fresh",
        [_new_public_slug(), now, packet_id, *params, now],
        actor=actor,
        kind=TeamEvent.PACKET_PUBLISHED,
        fresh_only=True,
    )
    if not published:
        held = Packet.objects.changeable_by(actor).filter(pk=packet_id, quarantined=True).first()
        if held is not None:
            raise quarantine_refusal(held, "published")
        _refuse_change(actor=actor, packet_id=packet_id)
    return published[0]


def packet_unpublish(*, actor, packet_id: str) -> None:
    """Take the public page down. The slug is forgotten: a later publish mints a new URL and
    the old one, wherever it leaked, stays dead. Unpublishing what is not published does nothing."""
    may_change, params = changeable_sql(_PACKETS, actor)
    unpublished = _changed_and_logged(
        f"UPDATE {_PACKETS} SET public_slug = NULL, published_at = NULL "
        f"WHERE id = %s AND public_slug IS NOT NULL AND {may_change} RETURNING id, team_id, goal",
        [packet_id, *params],
        actor=actor,
        kind=TeamEvent.PACKET_UNPUBLISHED,
    )
    if not unpublished and not Packet.objects.changeable_by(actor).filter(pk=packet_id).exists():
        _refuse_change(actor=actor, packet_id=packet_id)


@transaction.atomic
def packets_hand_to_teams(*, user, **_signal) -> int:
    """Before `user` leaves the hub: the packets they pushed to teams stay with those teams, owned
    of record by each team's owner, so leaving does not take shared knowledge away. Connected to
    accounts' `user_deleting` signal. Returns how many packets changed hands."""
    team_owner = Team.objects.filter(pk=OuterRef("team_id")).values("owner_id")[:1]
    return Packet.objects.filter(owner=user, team__isnull=False).update(owner_id=Subquery(team_owner))
