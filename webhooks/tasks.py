"""Webhook work on the Celery worker: sending a delivery, beat's sweep of those that fell due,
the daily pruning of the delivery log, and the mail that a webhook was turned off.

The schedule lives in the database (each delivery's next_attempt_at), and beat's sweep queues
what falls due, also after a worker was killed mid-retry. Celery's own retry (the task queued
again with a countdown) is not used: the worker would hold the waiting task unacknowledged, and
kombu's Redis transport, restoring such tasks when Redis goes away, stops the worker.
"""

import logging

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string

from webhooks.delivery import OFF_SAID, deliveries_due, deliveries_prune, delivery_attempt
from webhooks.models import Webhook

logger = logging.getLogger(__name__)


@shared_task(name="webhooks.tasks.delivery_send", ignore_result=True)
def delivery_send(delivery_id: str, turn: int) -> str | None:
    """One attempt at the delivery (if it is still at `turn`); a retry waits for beat's sweep."""
    attempted = delivery_attempt(delivery_id=delivery_id, turn=turn)
    return None if attempted is None else attempted.status


@shared_task(name="webhooks.tasks.deliveries_sweep", ignore_result=True)
def deliveries_sweep() -> int:
    """Queue every delivery that is due (beat, every LTM_WEBHOOK_SWEEP_SECONDS); how many."""
    due = deliveries_due()
    for delivery_id, turn in due:
        delivery_send.apply_async((delivery_id, turn))
    return len(due)


@shared_task(name="webhooks.tasks.deliveries_prune", ignore_result=True)
def deliveries_prune_task() -> int:
    """Forget deliveries older than 30 days (beat, daily)."""
    return deliveries_prune()


@shared_task(name="webhooks.tasks.webhook_off_mail", ignore_result=True)
def webhook_off_mail(webhook_id: str) -> bool:
    """Tell the webhook's owner (a team's: its owner) that the hub turned it off, and why."""
    webhook = Webhook.objects.select_related("owner", "team__owner").filter(pk=webhook_id, active=False).first()
    if webhook is None or not webhook.off_reason:
        return False
    person = webhook.owner if webhook.team_id is None else webhook.team.owner
    if not person.email:
        return False
    context = {"webhook": webhook, "reason": OFF_SAID[webhook.off_reason], "team": webhook.team}
    send_mail(
        subject="A webhook of yours on the ltm hub was turned off",
        message=render_to_string("webhooks/mail/turned_off.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[person.email],
    )
    return True
