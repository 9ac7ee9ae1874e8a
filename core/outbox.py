"""Work queued for after a commit survives the process that committed it.

`queue_after_commit` writes a row (core.models.OutboxTask) in the caller's transaction and, once
it commits, queues the Celery task and deletes the row. A process that dies between the commit
and the queue leaves the row behind, and a sweep queues it: Celery beat's every minute, each
worker's as it starts, and without a broker a thread of each web process (hub/wsgi.py).

Whoever queues a row first claims it, moving its `due_at` on by LEASE in one conditional UPDATE,
so among a committing process and any number of sweeps exactly one queues it. A fresh row is due
GRACE after its commit: its own process's hook has that long before a sweep may take it. A
process that claims a row and dies before deleting it leaves it to the sweep after the lease:
the work is queued at least once, and once when nothing dies after the commit but before the
queue is done. A queue that refuses (the broker away, or an eager task that failed) leaves the
row to the next sweep after GRACE.
"""

import logging
import os
import threading
import time
from datetime import timedelta

from celery import current_app
from django.db import connections, transaction
from django.utils import timezone

from core.models import OutboxTask

logger = logging.getLogger(__name__)

GRACE = timedelta(minutes=1)
LEASE = timedelta(minutes=15)
SWEEP_BATCH = 100


def queue_after_commit(task: str, args=(), kwargs=None, *, stored: tuple | None = None) -> None:
    """Queue the Celery task named `task` once the current transaction commits, and keep it in the
    outbox until then. `stored`, an (args, kwargs) pair, is what the row keeps and a sweep queues
    instead, when `args` hold a secret the database must not keep (teams.services.invites)."""
    kwargs = kwargs or {}
    row_args, row_kwargs = stored if stored is not None else (args, kwargs)
    row = OutboxTask.objects.create(task=task, args=list(row_args), kwargs=row_kwargs, due_at=timezone.now() + GRACE)
    signature = current_app.signature(task, args=tuple(args), kwargs=kwargs)
    transaction.on_commit(lambda: _deliver(row.pk, row.due_at, signature), robust=True)


def outbox_sweep(*, now=None, limit: int = SWEEP_BATCH) -> int:
    """Queue the rows that are due (a process died before queueing them, or the queue refused);
    how many were queued."""
    now = now or timezone.now()
    due = list(OutboxTask.objects.filter(due_at__lte=now).order_by("due_at", "pk")[:limit])
    queued = 0
    for row in due:
        signature = current_app.signature(row.task, args=tuple(row.args), kwargs=row.kwargs)
        queued += _deliver(row.pk, row.due_at, signature, now=now)
    if due:
        logger.info("outbox sweep: %s of %s due tasks queued", queued, len(due))
    return queued


def _deliver(row_id: int, due_at, signature, now=None) -> bool:
    """Claim the row as it was seen (due at `due_at`), queue its task, delete it. False when
    another process claimed it first, or the queue refused (the row waits for a sweep)."""
    now = now or timezone.now()
    if not OutboxTask.objects.filter(pk=row_id, due_at=due_at).update(due_at=now + LEASE):
        return False
    try:
        # Not retried here: the row is the retry.
        signature.apply_async(retry=False)
    except Exception:
        logger.warning("%s was not queued; the outbox sweep tries again", signature.task, exc_info=True)
        OutboxTask.objects.filter(pk=row_id).update(due_at=timezone.now() + GRACE)
        return False
    OutboxTask.objects.filter(pk=row_id).delete()
    return True


# Without a broker nothing else sweeps: a daemon thread of the web process does.

_sweeping_in = None  # the process whose thread sweeps


def sweep_in_background(interval: float) -> None:
    """Sweep every `interval` seconds in a thread of this process, and of each process forked
    from it (a web server's workers)."""
    global _sweeping_in
    if _sweeping_in is None:
        os.register_at_fork(after_in_child=lambda: sweep_in_background(interval))
    if _sweeping_in == os.getpid():
        return
    _sweeping_in = os.getpid()
    threading.Thread(target=_sweep_every, args=(interval,), name="outbox-sweep", daemon=True).start()


def _sweep_every(interval: float) -> None:
    started_in = os.getpid()
    while _sweeping_in == started_in:
        time.sleep(interval)
        try:
            outbox_sweep()
        except Exception:
            logger.exception("the outbox sweep failed; trying again in %s s", interval)
        finally:
            connections.close_all()  # this thread's: a minute's wait holds no connection
