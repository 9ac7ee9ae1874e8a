"""Where events come from: the signals of the apps below, each sent inside the transaction of the
change it tells about, so that the deliveries commit with the change.

- teams.signals.team_event_recorded: a member joined, left or was removed (member.joined,
  member.left);
- packets.signals.packets_changed: the packet events, named here from the lines of the team's
  log. A push the secret scan flags is told as packet.flagged alone (its content is held back);
  a packet moved between scopes is created where it arrives and deleted where it leaves, with
  `"moved": true`.
"""

from packets.signals import packets_changed
from teams.models import Team, TeamEvent
from teams.signals import team_event_recorded
from webhooks import payloads
from webhooks.emit import webhook_event_emit
from webhooks.models import (
    FINDING_CLEARED,
    MEMBER_JOINED,
    MEMBER_LEFT,
    PACKET_CREATED,
    PACKET_DELETED,
    PACKET_FLAGGED,
    PACKET_PUBLISHED,
    PACKET_SHARED,
    PACKET_UNPUBLISHED,
    PACKET_UPDATED,
)

# The lines of the team's log that are a packet event, and which.
PACKET_EVENTS = {
    TeamEvent.PACKET_PUSHED: PACKET_CREATED,
    TeamEvent.PACKET_REPUSHED: PACKET_UPDATED,
    TeamEvent.PACKET_FLAGGED: PACKET_FLAGGED,
    TeamEvent.PACKET_DELETED: PACKET_DELETED,
    TeamEvent.PACKET_PUBLISHED: PACKET_PUBLISHED,
    TeamEvent.PACKET_UNPUBLISHED: PACKET_UNPUBLISHED,
    TeamEvent.PACKET_MOVED_IN: PACKET_CREATED,
    TeamEvent.PACKET_MOVED_OUT: PACKET_DELETED,
    TeamEvent.PACKET_SHARED: PACKET_SHARED,
    TeamEvent.FINDING_CLEARED: FINDING_CLEARED,
}
GONE = {TeamEvent.PACKET_DELETED, TeamEvent.PACKET_MOVED_OUT}
MOVED = {TeamEvent.PACKET_MOVED_IN, TeamEvent.PACKET_MOVED_OUT}

# The lines of the team's log that are a member event, and which.
MEMBER_EVENTS = {
    TeamEvent.MEMBER_JOINED: MEMBER_JOINED,
    TeamEvent.MEMBER_LEFT: MEMBER_LEFT,
    TeamEvent.MEMBER_REMOVED: MEMBER_LEFT,
}


def member_changed(*, team_id, actor, kind, detail, **_signal) -> None:
    event = MEMBER_EVENTS.get(kind)
    if event is None:
        return
    team_name = Team.objects.filter(pk=team_id).values_list("name", flat=True).first()
    member = {"id": detail.get("user_id"), "name": detail.get("name")}
    data = payloads.member_data(team_name=team_name, member=member, actor=actor)
    if kind == TeamEvent.MEMBER_REMOVED:
        data["removed"] = True
    webhook_event_emit(event=event, data=data, team_id=team_id)


def packets_changed_told(*, actor, lines, **_signal) -> None:
    for kind, team_id, packet in lines:
        event = PACKET_EVENTS.get(kind)
        if event is None:
            continue

        def data(kind=kind, team_id=team_id, packet=packet) -> dict:
            team_name = Team.objects.filter(pk=team_id).values_list("name", flat=True).first() if team_id else None
            told = payloads.packet_data(packet, team_name=team_name, actor=actor, gone=kind in GONE)
            return {**told, "moved": True} if kind in MOVED else told

        webhook_event_emit(event=event, data=data, team_id=team_id, owner_id=packet.owner_id)


def connect() -> None:
    team_event_recorded.connect(member_changed, dispatch_uid="webhooks-member-events")
    packets_changed.connect(packets_changed_told, dispatch_uid="webhooks-packet-events")
