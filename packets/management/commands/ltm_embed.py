import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from packets.models import Packet
from packets.search import meaning
from packets.search.tasks import embed_packets
from teams.models import Team

POLL_SECONDS = 1.0


class Command(BaseCommand):
    help = (
        "Store the vector of each packet (or one team's) for recall by meaning: every packet, or with "
        "--missing only those that have none (pushed before the hub had vectors, or while "
        "LTM_SEMANTIC was off). A Celery task does the work; this command follows its progress until it "
        "finishes (or returns at once with --no-wait). Without a broker the task runs here, at once. "
        "Running it again stores the same vectors."
    )

    def add_arguments(self, parser):
        parser.add_argument("--missing", action="store_true", help="only the packets that have no vector")
        parser.add_argument("--team", help="only this team's packets")
        parser.add_argument("--no-wait", action="store_true", help="ask for the work and return")
        parser.add_argument("--timeout", type=float, default=3600, help="seconds to follow it (default: an hour)")

    def handle(self, *args, missing=False, team=None, no_wait=False, timeout=3600, **options):
        if not meaning.enabled():
            raise CommandError("recall by meaning is off on this hub (LTM_SEMANTIC=off): nothing to embed")
        scope = None
        if team:
            scope = Team.objects.filter(name=team).first()
            if scope is None:
                raise CommandError(f"no team {team!r}")
        packets = Packet.objects.filter(team=scope) if scope else Packet.objects.all()
        wanted = (packets.filter(embedding__isnull=True) if missing else packets).count()
        asked_at = timezone.now()
        what = f"{'missing vectors' if missing else 'vectors'}{f' of team {team}' if team else ''}"
        self.stdout.write(f"{what}: {wanted} packets to embed")
        embed_packets.delay(missing=missing, team_id=scope.pk if scope else None)
        if no_wait or settings.CELERY_TASK_ALWAYS_EAGER:  # eager: the task has already run
            done = packets.filter(embedded_at__gte=asked_at).count()
            self.stdout.write(f"done: {done} packets embedded" if not no_wait else "asked for")
            return
        deadline, shown = time.monotonic() + timeout, None
        while True:
            done = packets.filter(embedded_at__gte=asked_at).count()
            if done != shown:
                self.stdout.write(f"embedded {done} of {wanted}")
                shown = done
            if done >= wanted:
                break
            if time.monotonic() > deadline:
                raise CommandError("the vectors are not all stored yet; is a Celery worker running?")
            time.sleep(POLL_SECONDS)
        self.stdout.write(f"done: {done} packets embedded")
