"""The embedded default's sender (LTM_WEBHOOK_SENDER=web, no broker): a thread of each web
process sends what is due, woken by each commit that wrote deliveries (webhooks.emit) and at
least every POLL_SECONDS for the retries, on a few threads of its own so that a slow receiver
holds up no other. hub/wsgi.py starts it with the process, so that deliveries left pending by
a restart go out; webhooks.delivery's claims keep two processes from sending one delivery twice.
"""

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from django.db import connections

from webhooks.delivery import deliveries_due, delivery_attempt

logger = logging.getLogger(__name__)

POLL_SECONDS = 2.0
SENDERS = 4

_woken = threading.Event()
_lock = threading.Lock()
_running = None  # (process id, thread): the thread that sends for this process
_fork_hook = []  # whether forked processes start their own


def wake() -> None:
    """Send what is due now (starting this process's thread if it has none yet)."""
    start()
    _woken.set()


def start() -> None:
    """Start this process's thread, and that of each process forked from it (a web server's
    workers), unless it runs already."""
    global _running
    with _lock:
        if _running is not None and _running[0] == os.getpid():
            return
        if not _fork_hook:
            os.register_at_fork(after_in_child=start)
            _fork_hook.append(True)
        thread = threading.Thread(target=_run, name="webhook-sender", daemon=True)
        _running = (os.getpid(), thread)
    thread.start()


def stop() -> None:
    """Let this process's thread end after its current round (a process that exits needs not)."""
    global _running
    with _lock:
        _running = None
    _woken.set()


def _run() -> None:
    me = (os.getpid(), threading.current_thread())
    pool = ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="webhook-send")
    while True:
        _woken.wait(POLL_SECONDS)
        _woken.clear()
        if _running != me:
            break
        try:
            for delivery_id, turn in deliveries_due():
                pool.submit(_send, delivery_id, turn)
        except Exception:
            logger.exception("the webhook sender failed; trying again in %s s", POLL_SECONDS)
        finally:
            connections.close_all()  # this thread's: a wait holds no connection
    pool.shutdown(wait=True)


def _send(delivery_id: str, turn: int) -> None:
    try:
        delivery_attempt(delivery_id=delivery_id, turn=turn)
    except Exception:
        logger.exception("webhook delivery %s failed", delivery_id)
    finally:
        connections.close_all()
