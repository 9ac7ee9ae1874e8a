"""SQLite's search index, written off the request.

A push on SQLite only names its packet as waiting for the index, and a thread of the process that
pushed indexes what waits a moment later (GATHER), BATCH packets to a transaction, in the index's
own file (packets.search.sqlite_index), so that no push waits for it. Fewer than BATCH are left
waiting while pushes keep coming, for up to LATEST: the next pushes fill the batch. The index is
about a second behind at most, and a search still indexes whatever waits before it reads
(packets.search.keyword), so its results are never behind.

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

from packets.search import sqlite_index

BATCH = 32
GATHER = 0.25  # seconds between a push and the indexing of its packet
LATEST = 0.5  # seconds fewer than BATCH may be left waiting while pushes keep coming

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


def index_if_behind() -> None:
    """At a web worker's start: this process's thread indexes what waits (pushed just before a
    restart), and builds the index if it has none for this database (after an upgrade, a restore,
    or its file deleted), rather than the first search doing it while its client waits."""
    if connection.vendor == "sqlite" and not connection.is_in_memory_db() and sqlite_index.behind(1):
        _indexer.wake()


def index_batch() -> int:
    """Index up to BATCH waiting packets, the oldest changes first, in one transaction; how many
    still wait (up to BATCH)."""
    return sqlite_index.index(BATCH)


def waiting() -> int:
    """How many packets wait for the index, up to BATCH."""
    return sqlite_index.behind(BATCH)


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
        now = time.monotonic()
        if left and (not pushed or now - (self.short_since or now) >= LATEST):
            left = index_batch()
        self.short_since = (self.short_since or now) if left else None


_indexer = _Indexer()
