"""The embedded default's sender (LTM_FEDERATION_SENDER=web, no broker): a thread of the web
process sends what is due once a share commits, and again when a retry falls due; hub/wsgi.py
wakes it as the process starts, for what a restart left pending."""

import logging
import threading

from django.db import connections

from federation.delivery import message_attempt, messages_due

logger = logging.getLogger(__name__)


def wake() -> None:
    threading.Thread(target=_send_due, name="federation-sender", daemon=True).start()


def later(seconds: float) -> None:
    timer = threading.Timer(seconds, _send_due)
    timer.daemon = True
    timer.start()


def _send_due() -> None:
    try:
        for message_id in messages_due():
            attempted = message_attempt(message_id=message_id)
            if attempted is not None and attempted.retry_in is not None:
                later(attempted.retry_in)
    except Exception:
        logger.exception("the federation sender failed")
    finally:
        connections.close_all()  # this thread's
