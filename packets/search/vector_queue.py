"""The packets' vectors, written off the push.

After a push commits, the thread of the process that pushed wakes a moment later (GATHER) and
embeds what waits (packets.search.vectors.waiting), BATCH packets to a transaction, taking the
writers' turn for each (packets.sqlite_writers on SQLite), so a push never waits for the model and a
pushed packet is found by meaning within a second or so (docs/search.md promises 5). Several
processes may embed the same packet at once: both store the same vector. On an in-memory SQLite
database (the tests'), whose connection a thread cannot share, the packet is embedded right after
the push commits, as Celery runs its tasks eagerly there.

The thread computes each vector once no request of its process is in progress (core.give_way),
or after GIVE_WAY: a request it ran beside would wait for the interpreter's lock until its batch
was done, and now waits for one packet's vector at most."""

import logging
import os
import threading
import time

from django.db import connection, connections

from core.give_way import give_way
from packets.search import vectors

GATHER = 0.25  # seconds between a push and the embedding of its packet
GIVE_WAY = 0.01  # seconds a packet waits at most for the requests in progress before it is embedded
PAUSE = 0.002  # seconds between two batches, in which a push waiting for its turn goes first

logger = logging.getLogger(__name__)


def embed_soon() -> None:
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        embed_waiting()
    else:
        _embedder.wake()


def embed_waiting() -> int:
    """Embed every recent packet that waits, a batch to a transaction; how many were stored."""
    stored = 0
    while rows := vectors.waiting():
        done = vectors.embed_rows(rows, before_each=lambda: give_way(GIVE_WAY))
        stored += done
        if len(rows) < vectors.BATCH or not done:  # none stored: each was pushed again, and woke us again
            break
        time.sleep(PAUSE)
    return stored


class _Embedder:
    def __init__(self):
        self.woken = threading.Event()
        self.started_in = None  # the process whose thread this is: a forked child starts its own
        self.starting = threading.Lock()

    def wake(self) -> None:
        if self.started_in != os.getpid():
            with self.starting:
                if self.started_in != os.getpid():
                    threading.Thread(target=self.run, name="search-vectors", daemon=True).start()
                    self.started_in = os.getpid()
        self.woken.set()

    def run(self) -> None:
        while True:
            self.woken.wait()
            time.sleep(GATHER)
            self.woken.clear()
            try:
                embed_waiting()
            except Exception:
                # They still wait: the next push's wake, or ltm_embed, embeds them.
                logger.exception("search vectors: the waiting packets were not embedded")
            finally:
                # This thread's connection, closed while it sleeps: a connection kept open would
                # hold a PostgreSQL session (and keep a test database from being dropped).
                connections.close_all()


_embedder = _Embedder()
