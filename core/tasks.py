"""The outbox's sweep as a Celery task: beat sends it every minute (settings.CELERY_BEAT_SCHEDULE)."""

from celery import shared_task

from core.outbox import outbox_sweep


@shared_task(name="core.tasks.outbox_sweep")
def outbox_sweep_task() -> int:
    """Queue the outbox's due tasks; how many were queued."""
    return outbox_sweep()
