from django.db import models
from django.utils import timezone


class OutboxTask(models.Model):
    """A Celery task to queue once the transaction that wrote this row has committed (core.outbox):
    while the row exists, the work has not been handed to the queue yet."""

    task = models.CharField(max_length=200, help_text="The Celery task's registered name.")
    args = models.JSONField(default=list)
    kwargs = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
    due_at = models.DateTimeField(
        db_index=True, help_text="When a sweep may queue it: its own process has had its chance, or gave up."
    )

    def __str__(self) -> str:
        return f"{self.task} due {self.due_at:%Y-%m-%d %H:%M:%S}"
