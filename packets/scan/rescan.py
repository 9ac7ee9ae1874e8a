"""Rescanning stored packets with today's secret-scan patterns, so that a pattern added later
catches packets pushed before it."""

import json

from django.db import transaction
from django.utils import timezone

from core.outbox import queue_after_commit
from packets.models import Packet, ScanRun
from packets.scan.detect import scan_packet
from packets.scan.findings import scan_policy
from packets.signals import packets_changed
from teams.events import packet_events_record
from teams.models import SCAN_OFF, Team, TeamEvent

# manage.py ltm_scan asks for a ScanRun; a Celery task (packets.scan.tasks.rescan_packets) does it
# and records its progress on the run. The task keeps the name it was first declared under: rows of
# the outbox (core.outbox) name it.
RESCAN_TASK = "packets.scan_tasks.rescan_packets"
RESCAN_BATCH = 200


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
    lines = [(TeamEvent.PACKET_FLAGGED, packet.team_id, packet)]
    packet_events_record(actor=None, lines=lines)
    packets_changed.send(sender=Packet, actor=None, lines=lines)
    return "flagged"
