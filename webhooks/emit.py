"""An event becomes deliveries: one row per webhook that hears it, written in the transaction of
the change it tells about (both commit, or neither), and handed on once that commits.

Handed to whom: with a broker (LTM_WEBHOOK_SENDER=worker, the full stack), the hub's outbox
(core.outbox) queues one Celery task per delivery after the commit and a worker sends it; beat's
sweep (webhooks.tasks) queues the retries as they fall due and anything a dead process left. On
the embedded default there is no worker, and Celery's eager mode would send inside the request:
there (LTM_WEBHOOK_SENDER=web) the commit wakes a thread of the web process
(webhooks.sender), which sends what is due. Either way the rows are the record: nothing is lost
with a process.
"""

import json
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from ulid import ULID

from core.outbox import queue_after_commit
from webhooks import payloads, sender
from webhooks.models import Delivery, Webhook

SEND_TASK = "webhooks.tasks.delivery_send"


def message_id() -> str:
    """A delivery's id, its `webhook-id` header: unique, sortable, as the spec's examples look."""
    return f"msg_{ULID()}"


def webhook_event_emit(*, event: str, data, team_id: str | None = None, owner_id=None, at=None) -> list:
    """Deliver `event` to the webhooks that hear it: the team's (`team_id`) or, for a person's
    own packets, the person's (`owner_id`). Inside the caller's transaction; the deliveries.
    `data` is the event's data, or a function that makes it, called only if a webhook hears it."""
    if not connection.in_atomic_block:
        raise RuntimeError("webhook deliveries are written inside the transaction of the change they tell about")
    hearing = _hearing_ids(event=event, team_id=team_id, owner_id=owner_id)
    if not hearing:
        return []
    hooks = list(Webhook.objects.filter(pk__in=hearing))
    return deliveries_create(webhooks=hooks, event=event, data=data() if callable(data) else data, at=at)


def _hearing_ids(*, event: str, team_id, owner_id) -> list:
    """The ids of the active webhooks of the scope that hear `event`. Every push asks, and almost
    always none does: one plain SQL statement of two columns, without the ORM's compilation, as
    the bearer's lookup (oauth.selectors.bearer_get)."""
    table = connection.ops.quote_name(Webhook._meta.db_table)
    if team_id is not None:
        scope, params = "team_id = %s", [team_id]
    else:
        scope, params = "owner_id = %s AND team_id IS NULL", [owner_id]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, events FROM {table} WHERE {scope} AND active", params)
        rows = cursor.fetchall()
    # SQLite keeps JSON as text; PostgreSQL's jsonb may arrive parsed.
    return [pk for pk, events in rows if event in (json.loads(events) if isinstance(events, str) else events)]


def deliveries_create(*, webhooks: list, event: str, data: dict, at: datetime | None = None) -> list[Delivery]:
    at = at or timezone.now()
    deliveries = [
        Delivery(
            id=message_id(),
            webhook=hook,
            event=event,
            body=payloads.body(webhook=hook, event=event, data=data, at=at),
            next_attempt_at=at,
            created_at=at,
        )
        for hook in webhooks
    ]
    Delivery.objects.bulk_create(deliveries)
    deliveries_queue(deliveries)
    return deliveries


def deliveries_queue(deliveries: list[Delivery]) -> None:
    """Hand `deliveries` (due now, at their `turn`) on once the transaction commits."""
    if settings.LTM_WEBHOOK_SENDER == "web":
        transaction.on_commit(sender.wake)
        return
    for delivery in deliveries:
        queue_after_commit(SEND_TASK, args=[delivery.pk, delivery.turn])
