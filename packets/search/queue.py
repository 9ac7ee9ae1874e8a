"""SQLite's search index, written off the request.

A push on SQLite only names its packet as waiting for the index (migrations 0012 and 0013); a
thread of the process that pushed indexes what waits a moment later (GATHER), BATCH packets to a
transaction, taking the writers' turn (packets.sqlite_writers) for each batch so that a push waits at
most one batch. Fewer than BATCH are left waiting while pushes keep coming, for up to LATEST: the
next pushes fill the batch. No push waits for the index, and the index is about a second behind
at most. A search still indexes whatever waits before it reads (packets.search.selectors), so its results
are never behind.

Why in full batches: FTS5 writes a new index segment at every commit, so one packet a transaction
costs several times what it costs in a batch, and the small segments must be merged later; each
web worker has its thread, and the second to wake would otherwise index the few pushed since the
first. On PostgreSQL, and on an in-memory SQLite database (the tests'), nothing waits and no
thread starts.
"""

import logging
import os
import threading
import time

from django.db import close_old_connections, connection, transaction

from packets.sqlite_writers import write_turn

BATCH = 32
GATHER = 0.25  # seconds between a push and the indexing of its packet
LATEST = 0.5  # seconds fewer than BATCH may be left waiting while pushes keep coming
PAUSE = 0.002  # seconds between two batches, in which a push waiting for its turn goes first

logger = logging.getLogger(__name__)


def index_after_push(**_signal) -> None:
    """Connected to packets.signals.packet_pushed: on SQLite, the pushed packet waits for the index
    (the push named it in its statement), which this process's thread writes once the push commits."""
    if connection.vendor == "sqlite":
        transaction.on_commit(index_soon)


def index_soon() -> None:
    """After a push stored a packet: this process's indexing thread will index it (started on the
    first call in each process)."""
    if connection.vendor == "sqlite" and not connection.is_in_memory_db():
        _indexer.wake()


def index_batch() -> int:
    """Index up to BATCH waiting packets, the oldest ids first, in one transaction; how many still
    wait (up to BATCH)."""
    with write_turn(connection, durable=False), connection.cursor() as cursor:
        cursor.execute("INSERT INTO packets_search_index_batch (size) VALUES (%s)", [BATCH])
    return waiting()


def waiting() -> int:
    """How many packets wait for the index, up to BATCH."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM (SELECT 1 FROM packets_search_waiting LIMIT %s)", [BATCH])
        return cursor.fetchone()[0]


class _Indexer:
    def __init__(self):
        self.woken = threading.Event()
        self.started_in = None  # the process whose thread this is: a forked child starts its own
        self.starting = threading.Lock()
        self.short_since = None  # when fewer than BATCH were first left waiting

    def wake(self) -> None:
        if self.started_in != os.getpid():
            with self.starting:
                if self.started_in != os.getpid():
                    threading.Thread(target=self.run, name="search-index", daemon=True).start()
                    self.started_in = os.getpid()
        self.woken.set()

    def run(self) -> None:
        while True:
            self.woken.wait(timeout=None if self.short_since is None else GATHER)
            time.sleep(GATHER)
            pushed = self.woken.is_set()  # since the last look
            self.woken.clear()
            try:
                self.look(pushed=pushed)
            except Exception:
                # The packets still wait: the next push's wake, or a search, indexes them.
                logger.exception("search index: the waiting packets were not indexed")
            finally:
                close_old_connections()

    def look(self, *, pushed: bool) -> None:
        """Index the full batches that wait, and the rest when no push came since the last look or
        it has waited LATEST."""
        left = waiting()
        while left >= BATCH:
            left = index_batch()
            time.sleep(PAUSE)
        now = time.monotonic()
        if left and (not pushed or now - (self.short_since or now) >= LATEST):
            left = index_batch()
        self.short_since = (self.short_since or now) if left else None


_indexer = _Indexer()
