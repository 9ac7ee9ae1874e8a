"""A rescan of stored packets (packets.scan.rescan)."""

from django.db import models
from django.utils import timezone

from core.ids import new_id


class ScanRun(models.Model):
    """One rescan of stored packets with today's secret-scan patterns (manage.py ltm_scan), run
    by a Celery task that records its progress here, so whoever started it can follow it."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    scanned = models.PositiveIntegerField(default=0)
    flagged = models.PositiveIntegerField(default=0)
    unflagged = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"scan {self.id}: {self.scanned}/{self.total}"
