import time

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from packets.scan.rescan import scan_run_request
from teams.models import Team

POLL_SECONDS = 1.0


class Command(BaseCommand):
    help = (
        "Scan the stored packets (or one team's) again with today's secret-scan patterns, so that a "
        "pattern added later catches packets pushed before it. A Celery task does the work and records "
        "its progress; this command follows it until it finishes (or returns at once with --no-wait). "
        "Running it again changes nothing that did not change."
    )

    def add_arguments(self, parser):
        parser.add_argument("--team", help="only this team's packets")
        parser.add_argument("--no-wait", action="store_true", help="ask for the scan and return")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds to follow it (default: an hour)")

    def handle(self, *args, team=None, no_wait=False, timeout=3600, **options):
        scope = None
        if team:
            scope = Team.objects.filter(name=team).first()
            if scope is None:
                raise CommandError(f"no team {team!r}")
        with transaction.atomic():
            run = scan_run_request(team=scope)
        self.stdout.write(f"scan {run.pk} asked for{f' (team {team})' if team else ''}")
        if no_wait:
            return
        deadline, shown = time.monotonic() + timeout, None
        while True:
            run.refresh_from_db()
            progress = (run.scanned, run.total)
            if run.started_at and progress != shown:
                self.stdout.write(f"scanned {run.scanned} of {run.total}")
                shown = progress
            if run.finished_at:
                break
            if time.monotonic() > deadline:
                raise CommandError(f"scan {run.pk} has not finished yet; is a Celery worker running?")
            time.sleep(POLL_SECONDS)
        self.stdout.write(
            f"done: {run.scanned} scanned, {run.flagged} newly flagged, {run.unflagged} no longer flagged"
        )
