"""The team's activity log has one writer: this module, which writes every line one way, an
INSERT inside the transaction of the change it records, on either database. A change and its line
commit together or not at all: a line that cannot be written undoes its change, and a change
rolled back leaves no line.

A line says who did what (`actor` and the name they had then) and what it was about (`detail`).
Team changes write theirs with `team_event_record`; changes to packets with
`packet_events_record`, given the packets the change returned, each named by `packet_detail`. The
kind of a push's line is `push_kind`'s.
"""

import functools

from django.db import connection

from teams.models import TeamEvent
from teams.signals import team_event_recorded

# How much of a packet's goal a line keeps (the log is read as a list, not as the packet).
GOAL_CHARS = 200


def team_event_record(*, team_id: str, actor, kind: str, **detail) -> None:
    """Append a line to the team's activity log (inside the caller's transaction). `actor` may be
    None (nobody in particular); their name is kept for when the person is gone."""
    _write([_line(team_id=team_id, actor=actor, kind=kind, detail=detail)])
    team_event_recorded.send(sender=TeamEvent, team_id=team_id, actor=actor, kind=kind, detail=detail)


def packet_events_record(*, actor, lines) -> None:
    """The lines of a change to packets, one INSERT for them all (inside the caller's transaction):
    `lines` are (kind, team_id, packet), `team_id` the team whose log it goes to (where the packet
    is, or was for a move out); a personal packet (None) writes nothing."""
    events = [
        _line(team_id=team_id, actor=actor, kind=kind, detail=packet_detail(packet))
        for kind, team_id, packet in lines
        if team_id is not None
    ]
    if events:
        _write(events)


def push_kind(*, inserted: bool, quarantined: bool) -> str:
    """The line of a push: flagged when the secret scan quarantined the packet, else pushed (a new
    packet) or re-pushed (one its creator replaced)."""
    if quarantined:
        return TeamEvent.PACKET_FLAGGED
    return TeamEvent.PACKET_PUSHED if inserted else TeamEvent.PACKET_REPUSHED


def person_detail(user) -> dict:
    """How a line names the person it is about: id and the name they had then."""
    return {"user_id": user.pk, "name": user.display_name}


def packet_detail(packet) -> dict:
    """How a line names a packet: its id and the start of its goal; a packet the secret scan
    quarantines by its id alone (what it found may be in the goal, and every member reads the log)."""
    return {"packet_id": packet.pk, "goal": "" if getattr(packet, "quarantined", False) else packet.goal[:GOAL_CHARS]}


def _line(*, team_id, actor, kind: str, detail: dict) -> TeamEvent:
    return TeamEvent(
        team_id=team_id,
        actor=actor,
        actor_name=actor.display_name if actor is not None else "",
        kind=kind,
        detail=detail,
    )


def _write(events: list[TeamEvent]) -> None:
    """The one way a line is written: one INSERT of the lines, their values as the model's fields
    store them. Outside a transaction a line could outlive a change rolled back (or the change
    could outlive it): refused."""
    if not connection.in_atomic_block:
        raise RuntimeError("a line of the team's activity log is written inside the transaction of its change")
    fields, sql = _insert_statement(connection.vendor, len(events))
    values = [field.get_db_prep_save(getattr(event, field.attname), connection) for event in events for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)


@functools.cache
def _insert_statement(vendor: str, lines: int) -> tuple[list, str]:
    """The fields _write stores and its INSERT of `lines` lines, written once per process (a push
    into a team runs it; bulk_create would build it again each time)."""
    fields = [
        TeamEvent._meta.get_field(name) for name in ("team", "actor", "actor_name", "kind", "detail", "created_at")
    ]
    row = f"({', '.join(['%s'] * len(fields))})"
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    return (
        fields,
        f"INSERT INTO {connection.ops.quote_name(TeamEvent._meta.db_table)} ({columns}) VALUES {', '.join([row] * lines)}",
    )
