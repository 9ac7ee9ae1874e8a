"""The hub's secret scan: a second line behind the client's redaction check.

Every push is scanned (packets.secret_scan) under a policy: the hub's LTM_SECRET_SCAN, made
stricter by the packet's team if it asks. `refuse` stores nothing and answers 422 with the
findings; `flag` stores the packet exactly as sent and quarantines it until its creator pushes a
clean version or someone who may clear the findings (packets.models.CLEAR: the creator while in
the packet's team, the team's owner or an admin) clears them with a reason. Meanwhile it may not
be published or shared (409), a public page it had is taken down (publishing again makes a new
link), and only those who may clear it read its content: every other reader (a team's member,
the person it was shared with) is told it is held (HELD, a 409 for a pull) and sees no more of it
than its id. A finding is a JSON path and a kind, never the secret.

The push stores what this module decides in the push's own statement (packets.services); the
rest (clearing, the review queue, a rescan of stored packets) is here."""

import json

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import BadRequest, Conflict, Forbidden, NotFound, Unprocessable
from core.outbox import queue_after_commit
from packets.models import CLEAR, Packet, ScanRun
from packets.secret_scan import scan_packet
from teams.events import packet_detail, packet_events_record, team_event_record
from teams.models import SCAN_OFF, SCAN_REFUSE, Team, TeamEvent, strictest_scan

REFUSED = "the packet looks like it carries secrets"
CLEAR_REASON_MAX_LENGTH = 500
RESCAN_BATCH = 200


def scan_policy(team: Team | None) -> str:
    """off, flag or refuse: the hub's policy, or the team's when it is stricter."""
    return strictest_scan(settings.LTM_SECRET_SCAN, team.secret_scan if team is not None else "")


def findings_of_push(packet: dict, *, team: Team | None) -> list[dict] | None:
    """What the scan finds in a packet about to be pushed, as [{"path", "kind"}]; None when the
    policy does not scan. Unprocessable (422, nothing stored) when the policy refuses a hit."""
    policy = scan_policy(team)
    if policy == SCAN_OFF:
        return None
    found = [finding.as_dict() for finding in scan_packet(packet)]
    if found and policy == SCAN_REFUSE:
        raise Unprocessable(REFUSED, extra={"findings": found})
    return found


def described(findings: list[dict]) -> str:
    """Findings as a message names them: "next_step (aws-access-key), goal (github-token)"."""
    return ", ".join(f"{finding['path']} ({finding['kind']})" for finding in findings)


def quarantine_refusal(packet: Packet, doing: str) -> Conflict:
    """The 409 for publishing or sharing a quarantined packet: what was found, and the way out."""
    return Conflict(
        f"packet {packet.pk} cannot be {doing}: the hub's secret scan found {described(packet.findings)}; "
        "push a version without them, or clear the findings with a reason "
        f"(`ltm findings clear {packet.pk} --reason ...`, Clear findings on its page, "
        f"or POST /v1/packets/{packet.pk}/findings/clear)",
        extra={"findings": packet.findings},
    )


class Held(Conflict):
    """A reader asked for the content of a packet the secret scan holds back from them (HELD)."""


def held_refusal(packet_id: str, findings: list[dict]) -> Held:
    """The 409 for reading a held packet: that it is held, what was found (never the secret) and
    who may end it; the packet's id alone is named, nothing of its content."""
    return Held(
        f"packet {packet_id} is held back by the hub's secret scan, which found {described(findings)}: "
        "until a version without them is pushed or the findings are cleared, only those who may clear them "
        "(its creator, and a team packet's owner and admins) can read it",
        extra={"held": True, "findings": findings},
    )


# A packet's findings, for whoever may read it.


def findings_list(*, viewer, packet_id: str) -> list[dict]:
    """The packet's findings, each with when it was found and who cleared it (if anyone)."""
    packet = Packet.objects.visible_to(viewer).select_related("findings_cleared_by").filter(pk=packet_id).first()
    if packet is None:
        raise NotFound("packet not found")
    return finding_rows(packet)


def finding_rows(packet: Packet) -> list[dict]:
    cleared = packet.findings_cleared_at is not None
    return [
        {
            **finding,
            "created_at": packet.scanned_at,
            "cleared_by": packet.findings_cleared_by if cleared else None,
            "cleared_at": packet.findings_cleared_at,
            "reason": packet.findings_clear_reason if cleared else "",
        }
        for finding in packet.findings
    ]


@transaction.atomic
def findings_clear(*, actor, packet_id: str, reason) -> Packet:
    """The creator, or the owner or an admin of the packet's team (CLEAR), vouches for the packet:
    its findings are cleared with the reason and the quarantine ends. Logged for a team packet."""
    if not isinstance(reason, str) or not reason.strip():
        raise BadRequest("reason is required: why these findings are not secrets (or no longer matter)")
    reason = " ".join(reason.split())
    if len(reason) > CLEAR_REASON_MAX_LENGTH:
        raise BadRequest(f"reason is at most {CLEAR_REASON_MAX_LENGTH} characters; got {len(reason)}")
    packet = Packet.objects.filter(CLEAR.q(actor)).select_for_update(of=("self",)).filter(pk=packet_id).first()
    if packet is None:
        if Packet.objects.visible_to(actor).filter(pk=packet_id).exists():
            raise Forbidden("only the packet's creator or the team owner (or an admin) can clear its findings")
        raise NotFound("packet not found")
    if not packet.findings:
        raise Conflict(f"packet {packet.pk} has no findings to clear")
    if not packet.quarantined:
        return packet  # cleared already: clearing again changes nothing
    packet.quarantined = False
    packet.findings_cleared_by, packet.findings_cleared_at, packet.findings_clear_reason = actor, timezone.now(), reason
    packet.save(update_fields=["quarantined", "findings_cleared_by", "findings_cleared_at", "findings_clear_reason"])
    if packet.team_id is not None:
        team_event_record(
            team_id=packet.team_id,
            actor=actor,
            kind=TeamEvent.FINDING_CLEARED,
            reason=reason,
            **packet_detail(packet),
        )
    return packet


# The review queue.


def _queued(viewer):
    """Quarantined packets the viewer is asked to look at: those whose findings they may clear
    (CLEAR: the ones they pushed, while in the packet's team, and every one of a team they own or
    administer)."""
    return Packet.objects.filter(CLEAR.q(viewer), quarantined=True)


def review_queue(*, viewer, team: Team | None = None) -> list[Packet]:
    """The viewer's review queue (or only `team`'s part of it), newest first."""
    packets = _queued(viewer).select_related("team")
    if team is not None:
        packets = packets.filter(team=team)
    return list(packets.order_by("-created_at", "-id").only(*QUEUE_FIELDS))


def review_queue_size(*, viewer) -> int:
    """How many packets the viewer's review queue holds (one COUNT, for the navigation)."""
    return _queued(viewer).count()


QUEUE_FIELDS = ("id", "goal", "created_at", "team", "owner", "findings", "scanned_at")


# Rescanning stored packets with today's patterns: manage.py ltm_scan asks for a ScanRun, a Celery
# task (packets.scan_tasks.rescan_packets) does it and records its progress on the run.

RESCAN_TASK = "packets.scan_tasks.rescan_packets"


def scan_run_request(*, team: Team | None = None) -> ScanRun:
    """Ask for a rescan of every stored packet (or `team`'s) once this transaction commits
    (through the outbox, core.outbox: a process that dies in between does not lose it)."""
    run = ScanRun.objects.create(team=team)
    queue_after_commit(RESCAN_TASK, args=(run.pk,))
    return run


def scan_run_perform(*, run_id: str) -> ScanRun | None:
    """Do the run: every packet in scope, RESCAN_BATCH at a time, its progress saved after each
    batch. New findings quarantine a packet (and forget an earlier clearing); findings gone end
    its quarantine; unchanged findings leave it alone, so running it twice changes nothing the
    second time."""
    run = ScanRun.objects.select_related("team").filter(pk=run_id).first()
    if run is None:
        return None
    packets = Packet.objects.all() if run.team is None else Packet.objects.filter(team=run.team)
    run.total, run.started_at = packets.count(), timezone.now()
    run.scanned = run.flagged = run.unflagged = 0
    run.save()
    after = ""
    while batch := list(packets.filter(pk__gt=after).select_related("team").order_by("pk")[:RESCAN_BATCH]):
        for packet in batch:
            change = _rescanned(packet)
            if change:
                setattr(run, change, getattr(run, change) + 1)
        run.scanned += len(batch)
        after = batch[-1].pk
        run.save(update_fields=["scanned", "flagged", "unflagged"])
    run.finished_at = timezone.now()
    run.save(update_fields=["finished_at"])
    return run


@transaction.atomic
def _rescanned(packet: Packet) -> str | None:
    if scan_policy(packet.team) == SCAN_OFF:
        return None
    found = [finding.as_dict() for finding in scan_packet(json.loads(packet.body))]
    scanned = packet.record_scan(found, timezone.now())
    if not scanned:
        return None
    packet.save(update_fields=scanned)
    if not found:
        return "unflagged"
    packet_events_record(actor=None, lines=[(TeamEvent.PACKET_FLAGGED, packet.team_id, packet)])
    return "flagged"
