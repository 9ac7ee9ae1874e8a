"""Threads that compute in the background of a web process give way to the requests it answers.

A web worker answers requests in one thread (web.py) beside threads of its own, which share the
interpreter's lock (the GIL) with it: packets.search.vector_queue computes the packets' vectors in
one. A request gives the lock up around each database call and takes it back, dozens of times.
While another thread computes with numpy, which releases and retakes the lock around its small
operations, the request's thread is woken each time only to find it taken again, and waits for the
computation to pause, however short Python's switch interval. So such a thread calls give_way()
before each step. It first sleeps a moment (LET_IN), the lock released, so that a request that
came in meanwhile takes the lock and starts; then the step waits until no other thread of the
process is answering a request (Django's request_started and request_finished), so that a request
waits for one step at most, or `at_most` seconds, so that the work is never held up for long.

CoreConfig.ready() connects the signals; a process that answers no requests (a Celery worker, a
management command) never waits.
"""

import threading
import time

LET_IN = 0.0005  # seconds give_way() sleeps first, long enough for a waiting thread to take the lock

_answering = set()  # the threads answering a request now
_changed = threading.Condition()


def request_started(**_signal) -> None:
    """Connected to django.core.signals.request_started."""
    with _changed:
        _answering.add(threading.get_ident())


def request_finished(**_signal) -> None:
    """Connected to django.core.signals.request_finished (sent as the server closes the answer)."""
    with _changed:
        _answering.discard(threading.get_ident())
        _changed.notify_all()


def give_way(at_most: float) -> bool:
    """Sleep LET_IN, then return once no thread of this process but the caller is answering a
    request (True), or after `at_most` seconds (False)."""
    time.sleep(LET_IN)
    me = threading.get_ident()
    with _changed:
        return _changed.wait_for(lambda: _answering <= {me}, timeout=at_most)
