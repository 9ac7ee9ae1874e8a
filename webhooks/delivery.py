"""Sending deliveries: one attempt at a time, on the Standard Webhooks schedule.

An attempt claims its delivery with one conditional UPDATE (the delivery's `turn` as the caller
saw it), so a stale task, a second sweep or a second process never sends it twice at once; the
claim holds it for LEASE, past the call's timeout, after which a sweep may take it again (its
process died mid-call). 2xx delivers it; 410 Gone turns the webhook off; 429 and 503 wait for
their Retry-After; anything else (another status, a timeout, a refusal of the outbound guard)
waits for the next step of SCHEDULE, with jitter. A webhook that has failed every call for
FAILING_FOR is turned off. Whoever turns one off mails its owner (webhooks.tasks).
"""

import logging
import random
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parsedate_to_datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core import outbound
from core.outbox import queue_after_commit
from teams.events import team_event_record
from teams.models import TeamEvent
from webhooks.models import OFF_FAILING, OFF_GONE, Delivery, Webhook
from webhooks.signals import delivery_attempted
from webhooks.signing import signed_headers

logger = logging.getLogger(__name__)

# Seconds after each failed attempt before the next (the spec's schedule): 10 attempts in all.
SCHEDULE = (5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600)
JITTER = 0.1  # each wait is up to 10% shorter or longer
FAILING_FOR = timedelta(days=3)
# Deliveries per webhook per second; more wait their turn (queued, not dropped).
PER_SECOND = 10
RESPONSE_BYTES = 4096
RETRY_AFTER_MAX = 24 * 3600
OFF_MAIL_TASK = "webhooks.tasks.webhook_off_mail"
OFF_SAID = {OFF_GONE: "its URL answered 410 Gone", OFF_FAILING: "every call failed for 3 days"}


def lease() -> timedelta:
    return timedelta(seconds=settings.LTM_WEBHOOK_TIMEOUT + 45)


@dataclass(frozen=True)
class Attempted:
    """What became of an attempt: `retry_in` seconds at `turn`, when it is to be tried again."""

    status: str
    retry_in: float | None = None
    turn: int | None = None


def delivery_attempt(*, delivery_id: str, turn: int) -> Attempted | None:
    """Make one attempt at the delivery if it is still at `turn`; None when someone else has it."""
    claimed = _claim(delivery_id, turn)
    if not isinstance(claimed, Delivery):
        return claimed
    webhook = claimed.webhook
    sealed = [webhook.secret]
    if webhook.previous_secret and webhook.previous_until and webhook.previous_until > timezone.now():
        sealed.append(webhook.previous_secret)
    headers = {
        **signed_headers(message_id=claimed.pk, body=claimed.body, secrets_sealed=sealed),
        "User-Agent": "ltm-hub-webhooks",
    }
    try:
        answer = outbound.post(
            webhook.url,
            body=claimed.body.encode(),
            headers=headers,
            timeout=settings.LTM_WEBHOOK_TIMEOUT,
            max_response_bytes=RESPONSE_BYTES,
            allow_hosts=settings.LTM_WEBHOOK_ALLOW_HOSTS,
            only_listed=settings.LTM_WEBHOOK_ONLY_LISTED,
        )
    except outbound.OutboundError as exc:
        answer, error = None, str(exc)
    else:
        error = ""
    attempted = _record(claimed, answer=answer, error=error)
    if attempted is not None:
        gone = answer is not None and answer.status == 410
        result = {Delivery.PENDING: "retried", Delivery.DELIVERED: "delivered"}.get(attempted.status, "failed")
        delivery_attempted.send(sender=Delivery, result="gone" if gone else result)
    return attempted


@transaction.atomic
def _claim(delivery_id: str, turn: int):
    """The delivery, claimed for an attempt now; or what became of it instead."""
    now = timezone.now()
    found = Delivery.objects.filter(pk=delivery_id, turn=turn, status=Delivery.PENDING).values("webhook_id").first()
    if found is None:
        return None
    # One claim at a time per webhook: the count of the last second's attempts holds.
    webhook = Webhook.objects.select_for_update().get(pk=found["webhook_id"])
    pending = Delivery.objects.filter(pk=delivery_id, turn=turn, status=Delivery.PENDING)
    if not webhook.active:
        pending.update(status=Delivery.FAILED, next_attempt_at=None, error="the webhook is off")
        return Attempted(Delivery.FAILED)
    recent = Delivery.objects.filter(webhook=webhook, last_attempt_at__gt=now - timedelta(seconds=1)).count()
    if recent >= PER_SECOND:
        wait = 1 + random.random()
        pending.update(turn=turn + 1, next_attempt_at=now + timedelta(seconds=wait))
        return Attempted(Delivery.PENDING, retry_in=wait, turn=turn + 1)
    if not pending.update(
        turn=turn + 1, attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=now + lease()
    ):
        return None
    delivery = Delivery.objects.get(pk=delivery_id)
    delivery.webhook = webhook
    return delivery


@transaction.atomic
def _record(delivery: Delivery, *, answer, error: str) -> Attempted | None:
    """Write down how the attempt went, unless the delivery moved on meanwhile (its lease ran
    out and another process took it)."""
    now = timezone.now()
    webhook = Webhook.objects.select_for_update().get(pk=delivery.webhook_id)
    mine = Delivery.objects.filter(pk=delivery.pk, turn=delivery.turn, status=Delivery.PENDING)
    status = answer.status if answer is not None else None
    kept = {
        "response_status": status,
        "response_body": answer.body.decode("utf-8", "replace") if answer is not None else "",
        "error": error,  # what kept an answer from coming; an answer's status says the rest
    }
    if status and 200 <= status < 300:
        if not mine.update(status=Delivery.DELIVERED, next_attempt_at=None, **kept):
            return None
        if webhook.failing_since is not None:
            Webhook.objects.filter(pk=webhook.pk).update(failing_since=None)
        return Attempted(Delivery.DELIVERED)
    wait = _wait(delivery.attempts, answer)
    outcome = Attempted(Delivery.FAILED) if wait is None else Attempted(Delivery.PENDING, wait, delivery.turn + 1)
    if not mine.update(
        status=outcome.status,
        turn=delivery.turn + 1,
        next_attempt_at=None if wait is None else now + timedelta(seconds=wait),
        **kept,
    ):
        return None
    failing_since = webhook.failing_since or now
    if webhook.failing_since is None:
        Webhook.objects.filter(pk=webhook.pk).update(failing_since=now)
    if status == 410:
        webhook_turn_off(webhook=webhook, reason=OFF_GONE)
        return Attempted(Delivery.FAILED)
    if webhook.active and now - failing_since >= FAILING_FOR:
        webhook_turn_off(webhook=webhook, reason=OFF_FAILING)
        return Attempted(Delivery.FAILED)
    return outcome


def _wait(attempts: int, answer) -> float | None:
    """Seconds before the next attempt after `attempts` failed ones; None when none is left."""
    if attempts > len(SCHEDULE) or (answer is not None and answer.status == 410):
        return None
    if answer is not None and answer.status in (429, 503):
        asked = retry_after(answer.headers)
        if asked is not None:
            return asked
    return SCHEDULE[attempts - 1] * random.uniform(1 - JITTER, 1 + JITTER)


def retry_after(headers: dict) -> float | None:
    """A Retry-After header's wait in seconds (a number or an HTTP date), within 1 s and a day."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), "").strip()
    if not value:
        return None
    try:
        seconds = float(int(value))
    except ValueError:
        try:
            seconds = (parsedate_to_datetime(value) - timezone.now()).total_seconds()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 1.0), RETRY_AFTER_MAX)


def webhook_turn_off(*, webhook: Webhook, reason: str) -> None:
    """The hub turns the webhook off (inside the caller's transaction): its pending deliveries
    end, a team's log says so, and its owner is mailed once this commits."""
    if not Webhook.objects.filter(pk=webhook.pk, active=True).update(active=False, off_reason=reason):
        return
    deliveries_end(webhook_id=webhook.pk, why=f"the hub turned the webhook off: {OFF_SAID[reason]}")
    if webhook.team_id is not None:
        team_event_record(
            team_id=webhook.team_id,
            actor=None,
            kind=TeamEvent.WEBHOOK_TURNED_OFF,
            webhook_id=webhook.pk,
            host=webhook.host,
            reason=OFF_SAID[reason],
        )
    queue_after_commit(OFF_MAIL_TASK, args=[webhook.pk])
    logger.info("webhook %s turned off: %s", webhook.pk, OFF_SAID[reason])


def deliveries_end(*, webhook_id: str, why: str) -> int:
    """The webhook's pending deliveries fail with `why` (inside the caller's transaction)."""
    return Delivery.objects.filter(webhook_id=webhook_id, status=Delivery.PENDING).update(
        status=Delivery.FAILED, next_attempt_at=None, error=why
    )


def deliveries_due(*, limit: int = 200) -> list[tuple[str, int]]:
    """Claim the deliveries that are due for sending, each by moving its turn on and holding it
    for a lease (so the next sweep leaves it be): (id, turn) pairs to attempt."""
    now = timezone.now()
    due = Delivery.objects.filter(status=Delivery.PENDING, next_attempt_at__lte=now).order_by("next_attempt_at")
    claimed = []
    for delivery_id, turn in due.values_list("pk", "turn")[:limit]:
        taken = Delivery.objects.filter(pk=delivery_id, turn=turn, status=Delivery.PENDING).update(
            turn=turn + 1, next_attempt_at=now + lease()
        )
        if taken:
            claimed.append((delivery_id, turn + 1))
    return claimed


def deliveries_prune(*, keep_days: int = 30) -> int:
    """Forget deliveries older than `keep_days`; how many."""
    deleted, _ = Delivery.objects.filter(created_at__lt=timezone.now() - timedelta(days=keep_days)).delete()
    return deleted
