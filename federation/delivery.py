"""Sending a message to another hub's inbox: one attempt at a time, through the outbound guard.

An attempt claims its message with one conditional UPDATE (pending, due, not claimed by a live
attempt), so two senders never send it at once. A message waits while an earlier one about the
same share is pending, so that a withdraw never overtakes its share. The other hub's answer
decides: 2xx delivered; another 4xx (its refusal: bad signature, no such user, secrets, ...)
failed for good with the reason it gave; a 5xx, 429, a timeout or no connection is tried again
after the next step of SCHEDULE, and failed once the schedule is spent. A share's state follows
its messages.
"""

import json
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core import outbound
from federation import documents, keys, peers, signing
from federation.models import DELIVERED, FAILED, PENDING, SHARE, UPDATE, Message, Peer, RemoteShare

# Seconds after each failed attempt before the next: 9 attempts over about two days.
SCHEDULE = (30, 2 * 60, 10 * 60, 30 * 60, 2 * 3600, 6 * 3600, 12 * 3600, 24 * 3600)
ANSWER_BYTES = 8192
WAIT_FOR_EARLIER = 5  # seconds


def lease() -> timedelta:
    return timedelta(seconds=2 * settings.LTM_FEDERATION_TIMEOUT + 30)


@dataclass(frozen=True)
class Attempted:
    state: str
    retry_in: float | None = None


def message_attempt(*, message_id: str) -> Attempted | None:
    """One attempt at the message if it is due and nobody else has it; None otherwise."""
    message = _claim(message_id)
    if message is None:
        return None
    earlier = Message.objects.filter(share_id=message.share_id, state=PENDING, created_at__lt=message.created_at)
    if earlier.exists():
        return _later(message, WAIT_FOR_EARLIER, "waits for an earlier message about the same share")
    if reason := peers.refusal(message.host):
        return _record(message, failed=reason)
    try:
        peer = documents.peer_known(message.host)
        kid, key = keys.signing_key()
        body = message.body.encode()
        headers = signing.signed_headers(url=peer.inbox, body=body, kid=kid, key=key)
        answer = outbound.post(
            peer.inbox,
            body=body,
            headers={**headers, "User-Agent": "ltm-hub-federation", "Accept": "application/json"},
            timeout=settings.LTM_FEDERATION_TIMEOUT,
            max_response_bytes=ANSWER_BYTES,
            allow_hosts=peers.outbound_hosts(),
        )
    except (documents.Unreachable, outbound.OutboundError) as exc:
        return _record(message, retry=str(exc))
    if 200 <= answer.status < 300:
        return _record(message)
    said = _error_of(answer)
    if answer.status in (408, 425, 429) or answer.status >= 500:
        return _record(message, retry=f"{message.host} answered {answer.status}: {said}")
    return _record(message, failed=said)


def _error_of(answer) -> str:
    try:
        error = json.loads(answer.body).get("error")
    except (ValueError, AttributeError):
        error = None
    return str(error)[:400] if error else f"answered {answer.status}"


def _claim(message_id: str) -> Message | None:
    now = timezone.now()
    due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    claimed = Message.objects.filter(due, free, pk=message_id, state=PENDING).update(
        claimed_until=now + lease(), attempts=F("attempts") + 1
    )
    return Message.objects.get(pk=message_id) if claimed else None


def _later(message: Message, seconds: float, why: str) -> Attempted:
    Message.objects.filter(pk=message.pk).update(
        next_attempt_at=timezone.now() + timedelta(seconds=seconds),
        claimed_until=None,
        attempts=F("attempts") - 1,
        last_error=why,
    )
    return Attempted(PENDING, retry_in=seconds)


@transaction.atomic
def _record(message: Message, *, failed: str = "", retry: str = "") -> Attempted:
    """How the attempt went: delivered (neither), failed for good, or to be tried again."""
    now = timezone.now()
    wait = None
    if retry:
        if message.attempts > len(SCHEDULE):
            failed = f"{retry} (gave up after {message.attempts} attempts)"
        else:
            wait = SCHEDULE[message.attempts - 1]
    state = PENDING if wait is not None else (FAILED if failed else DELIVERED)
    error = (failed or retry)[:500]
    Message.objects.filter(pk=message.pk).update(
        state=state,
        claimed_until=None,
        next_attempt_at=now + timedelta(seconds=wait) if wait is not None else None,
        last_error=error,
        sent_at=now if state == DELIVERED else None,
    )
    peer, _ = Peer.objects.get_or_create(host=message.host)
    counted = {DELIVERED: {"sent": F("sent") + 1}, FAILED: {"failed": F("failed") + 1}}.get(state, {})
    errors = {"last_error": error, "last_error_at": now} if error else {}
    if counted or errors:
        Peer.objects.filter(pk=peer.pk).update(**counted, **errors)
    if message.kind in (SHARE, UPDATE):
        shares = RemoteShare.objects.filter(pk=message.share_id)
        if state == DELIVERED:
            shares.update(state=DELIVERED, reason="", delivered_at=now)
        elif state == FAILED:
            shares.update(state=FAILED, reason=error)
        else:
            shares.filter(state=PENDING).update(reason=error)
    return Attempted(state, retry_in=wait)


def messages_due(*, limit: int = 100) -> list[str]:
    """The ids of the pending messages due for an attempt (the sweep queues them)."""
    now = timezone.now()
    due = Message.objects.filter(state=PENDING).filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
    due = due.filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
    return list(due.order_by("created_at", "id").values_list("pk", flat=True)[:limit])
