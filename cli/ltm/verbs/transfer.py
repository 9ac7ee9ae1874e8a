"""`ltm export` and `ltm import`: everything the person may read out as one stream, and back in."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ..client import Hub
from ..errors import HubRequestError, LtmError, UsageError
from .push import check_for_push, packet_id_of, push_to
from .session import connect, no_team

EXPORT_FORMATS = ("jsonl", "markdown")


@contextmanager
def export(format: str = "jsonl", team: str | None = None):
    """Stream everything the person may read (or a team's): yields (packet count or None, chunks)."""
    if format not in EXPORT_FORMATS:
        raise UsageError(f"--format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r}")
    hub = connect()
    try:
        with hub.export(format, team) as stream:
            yield stream
    except HubRequestError as exc:
        if exc.status == 404 and team:
            raise no_team(hub, team) from None
        raise


@dataclass
class Imported:
    line: int
    id: str
    outcome: str  # "pushed", "already there" or "refused"
    reason: str = ""
    findings: list[dict] = field(default_factory=list)  # what the hub's secret scan flagged in it


def import_packets(lines, *, team: str | None = None, allow_unredacted: bool = False):
    """Push each packet of a JSON-lines file (an iterable of byte lines), with push's validation
    and redaction pre-flight. A packet the hub already serves exactly so, in the scope the import
    goes to (`team`, else the person's own), is left alone, so a second run changes nothing; one
    the person has elsewhere is pushed, and the hub's refusal reported. Yields an Imported per
    packet; a refusal does not stop the run."""
    hub = connect()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        packet_id = packet_id_of(raw)
        try:
            packet = check_for_push(raw, allow_unredacted=allow_unredacted)
            if _already_there(hub, packet, team):
                yield Imported(number, packet_id, "already there")
                continue
            _, findings = push_to(hub, raw, team)
        except HubRequestError as exc:
            if exc.status is None or exc.status >= 500:
                raise  # the hub is unreachable or failing: stop, the next run picks up from here
            yield Imported(number, packet_id, "refused", exc.report())
        except LtmError as exc:
            yield Imported(number, packet_id, "refused", exc.report())
        else:
            yield Imported(number, packet_id, "pushed", findings=findings)


def _already_there(hub: Hub, packet: dict, team: str | None) -> bool:
    """True when the hub already serves this very packet to the person, in `team` (or among their
    own packets when None). GET answers whatever the packet's scope; its thread item says which."""
    try:
        if hub.get_packet(packet["id"]).json() != packet:
            return False
    except HubRequestError as exc:
        if exc.status == 404:
            return False
        raise
    try:
        scopes = [item.get("team") for item in hub.thread(packet["id"]) if item.get("id") == packet["id"]]
    except HubRequestError as exc:
        if exc.status is None or exc.status >= 500:
            raise
        return False  # a hub that cannot say where it is: the push decides
    return scopes == [team or None]
