"""HELD narrows READ while the secret scan quarantines a packet: only those who may clear its
findings (CLEAR) read its content then; every other reader is told that it is held (a 409, Held)
and sees no more of it than its id and HELD_GOAL for its goal."""

from django.db import models
from django.db.models import Q

from core.errors import Conflict
from packets.models.rights import CLEAR, READ

# What a reader without CLEAR is shown of a held packet instead of its goal (and nothing else of
# its content: no snippet, no body).
HELD_GOAL = "held back by the hub's secret scan"


def held_sql(alias: str, viewer) -> tuple[str, list]:
    """HELD: true on a packet the secret scan quarantines that `viewer` may not clear (CLEAR); of
    such a packet they may know that it exists and is held, never its content. A packet whose
    findings were cleared, or that a clean push replaced, is not quarantined."""
    may_clear, params = CLEAR.sql(alias, viewer)
    # COALESCE: `team_id IN (...)` is NULL on a personal packet, and NOT NULL would not be true.
    return f"({alias}.quarantined AND NOT COALESCE({may_clear}, FALSE))", params


def content_readable_sql(alias: str, viewer) -> tuple[str, list]:
    """The packets whose content `viewer` may read: READ, less HELD."""
    readable, params = READ.sql(alias, viewer)
    held, held_params = held_sql(alias, viewer)
    return f"({readable} AND NOT {held})", [*params, *held_params]


def held_q(viewer) -> Q:
    """HELD as a queryset filter (see held_sql)."""
    return Q(quarantined=True) & ~CLEAR.q(viewer)


def held_out(packet):
    """A packet read with its `held` (HELD for the reader) as a reader without CLEAR may see it:
    when held, its goal is HELD_GOAL and its other content empty, so that no page, list or answer
    shows any of it. For reading only: a packet held out is never saved."""
    packet.held = bool(packet.held)
    if packet.held:
        packet.goal, packet.next_step, packet.project, packet.tags, packet.body = HELD_GOAL, "", "", "", ""
    return packet


class HeldOut(models.query.ModelIterable):
    """The packets of Packet.objects.with_held, each held out (see held_out)."""

    def __iter__(self):
        return (held_out(packet) for packet in super().__iter__())


def findings_named(findings: list[dict]) -> str:
    """Findings as a message names them: "next_step (aws-access-key), goal (github-token)"."""
    return ", ".join(f"{finding['path']} ({finding['kind']})" for finding in findings)


class Held(Conflict):
    """A reader asked for the content of a packet the secret scan holds back from them (HELD)."""


def held_refusal(packet_id: str, findings: list[dict]) -> Held:
    """The 409 for reading a held packet: that it is held, what was found (never the secret) and
    who may end it; the packet's id alone is named, nothing of its content."""
    return Held(
        f"packet {packet_id} is held back by the hub's secret scan, which found {findings_named(findings)}: "
        "until a version without them is pushed or the findings are cleared, only those who may clear them "
        "(its creator, and a team packet's owner and admins) can read it",
        extra={"held": True, "findings": findings},
    )
