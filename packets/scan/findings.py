"""The hub's secret scan: a second line behind the client's redaction check.

Every push is scanned (packets.scan.detect) under a policy: the hub's LTM_SECRET_SCAN, made
stricter by the packet's team if it asks. `refuse` stores nothing and answers 422 with the
findings; `flag` stores the packet exactly as sent and quarantines it until its creator pushes a
clean version or someone who may clear the findings (packets.models.CLEAR: the creator while in
the packet's team, the team's owner or an admin) clears them with a reason. Meanwhile it may not
be published or shared (409), a public page it had is taken down (publishing again makes a new
link), and only those who may clear it read its content: every other reader (a team's member,
the person it was shared with) is told it is held (HELD, a 409 for a pull) and sees no more of it
than its id. A finding is a JSON path and a kind, never the secret.

The push stores what this module decides in the push's own statement (packets.services); clearing
and the review queue are here, the rescan of stored packets is packets.scan.rescan, and what a
held packet's reader is told is packets.models.held."""

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import BadRequest, Conflict, Forbidden, NotFound, Unprocessable
from packets.models import CLEAR, Packet, findings_named
from packets.scan.detect import scan_packet
from packets.signals import packets_changed
from teams.events import packet_detail, team_event_record
from teams.models import SCAN_OFF, SCAN_REFUSE, Team, TeamEvent, strictest_scan

REFUSED = "the packet looks like it carries secrets"
CLEAR_REASON_MAX_LENGTH = 500


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


def quarantine_refusal(packet: Packet, doing: str) -> Conflict:
    """The 409 for publishing or sharing a quarantined packet: what was found, and the way out."""
    return Conflict(
        f"packet {packet.pk} cannot be {doing}: the hub's secret scan found {findings_named(packet.findings)}; "
        "push a version without them, or clear the findings with a reason "
        f"(`ltm findings clear {packet.pk} --reason ...`, Clear findings on its page, "
        f"or POST /v1/packets/{packet.pk}/findings/clear)",
        extra={"findings": packet.findings},
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
    packets_changed.send(sender=Packet, actor=actor, lines=[(TeamEvent.FINDING_CLEARED, packet.team_id, packet)])
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
