"""The team's activity log has one writer: this module.

A line says who did what (`actor` and the name they had then) and what it was about (`detail`).
Team changes write their line with `team_event_record`, inside the caller's transaction. A
packet change on PostgreSQL writes its line in the same statement as the change, with a
data-modifying WITH built by `packet_events_sql`, so a push, a delete or a publish stays one
round trip; on SQLite (no data-modifying WITH, no concurrent writers) the same line is written
by `team_event_record` right after. Both take the detail from `packet_detail`'s declaration.
"""

from teams.models import TeamEvent

# How much of a packet's goal a line keeps (the log is read as a list, not as the packet).
GOAL_CHARS = 200


def team_event_record(*, team_id: str, actor, kind: str, **detail) -> TeamEvent:
    """Append a line to the team's activity log (inside the caller's transaction). `actor` may be
    None (nobody in particular); their name is kept for when the person is gone."""
    return TeamEvent.objects.create(
        team_id=team_id,
        actor=actor,
        actor_name=actor.display_name if actor is not None else "",
        kind=kind,
        detail=detail,
    )


def person_detail(user) -> dict:
    """How a line names the person it is about: id and the name they had then."""
    return {"user_id": user.pk, "name": user.display_name}


def packet_detail(packet) -> dict:
    """How a line names a packet: its id and the start of its goal."""
    return {"packet_id": packet.pk, "goal": packet.goal[:GOAL_CHARS]}


def packet_event_record(*, actor, kind: str, packet, team_id) -> None:
    """The line for a change to a packet of team `team_id` (nothing for a personal packet)."""
    if team_id is not None:
        team_event_record(team_id=team_id, actor=actor, kind=kind, **packet_detail(packet))


def kind_sql(kind: str) -> str:
    """A kind of line as an SQL literal (kinds are the log's own constants, never input)."""
    if kind not in dict(TeamEvent.KINDS):
        raise ValueError(f"not a kind of activity line: {kind!r}")
    return f"'{kind}'"


def packet_events_sql(*, changed: str, kind: str, where: str = "TRUE") -> str:
    """PostgreSQL: an INSERT of one line per team packet in the WITH query `changed` (its columns
    id, team_id and goal) for which `where` holds. `kind` is an SQL expression (see kind_sql).
    Its parameters are `packet_events_params`."""
    return (
        f"INSERT INTO {TeamEvent._meta.db_table} (team_id, actor_id, actor_name, kind, detail, created_at) "
        f"SELECT team_id, %s, %s, {kind}, "
        f"jsonb_build_object('packet_id', id, 'goal', left(goal, {GOAL_CHARS})), %s "
        f"FROM {changed} WHERE team_id IS NOT NULL AND ({where})"
    )


def packet_events_params(*, actor, at) -> list:
    """The parameters of `packet_events_sql`, in its order: who, the name they have now, when."""
    return [actor.pk, actor.display_name, at]
