"""The packets' vectors, written off the push.

After a push commits, the thread of the process that pushed wakes a moment later (GATHER) and
embeds the packets that process pushed, BATCH of them to a transaction (packets.search.vectors),
taking the writers' turn for each (packets.sqlite_writers on SQLite), so a push never waits for the
model and a pushed packet is found by meaning within a second or so (docs/search.md promises 5).

Each process embeds its own pushes: were each thread to take every packet that waits, the web
workers' threads would all compute the same vectors, each wasting what the requests beside it
need. A packet still waiting after STRAY (its process stopped first) is taken by the next thread
that wakes. On an in-memory SQLite database (the tests'), whose connection a thread cannot share,
the packet is embedded right after the push commits, as Celery runs its tasks eagerly there.

The thread computes each vector once no request of its process is in progress (core.give_way),
or after GIVE_WAY: a request it ran beside would wait for the interpreter's lock until its batch
was done, and now waits for one packet's vector at most."""

import logging
import time
from datetime import timedelta

from django.db import connection, connections
from django.utils import timezone

from core.give_way import give_way
from core.handoff import Handoff
from packets.search import vectors

GATHER = 0.25  # seconds between a push and the embedding of its packet
GIVE_WAY = 0.01  # seconds a packet waits at most for the requests in progress before it is embedded
PAUSE = 0.002  # seconds between two batches, in which a push waiting for its turn goes first
STRAY = timedelta(seconds=5)  # a packet waiting this long is embedded by any process

logger = logging.getLogger(__name__)


def embed_soon(packet_id: str) -> None:
    """After the push of `packet_id` committed: this process's thread will embed it."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        embed_waiting()
    else:
        _embedder.add(packet_id)


def embed_waiting(ids=None, *, pushed_before=None) -> int:
    """Embed the recent packets that wait (only those of `ids`, only those pushed before
    `pushed_before`, when given), a batch to a transaction; how many were stored."""
    if ids is not None:
        ids = sorted(ids)
        batches = (
            vectors.waiting(ids=ids[start : start + vectors.BATCH]) for start in range(0, len(ids), vectors.BATCH)
        )
        return sum(_embed(rows) for rows in batches)
    stored = 0
    while rows := vectors.waiting(pushed_before=pushed_before):
        done = _embed(rows)
        stored += done
        if len(rows) < vectors.BATCH or not done:  # none stored: each was pushed again, and woke us again
            break
    return stored


def _embed(rows) -> int:
    if not rows:
        return 0
    stored = vectors.embed_rows(rows, before_each=lambda: give_way(GIVE_WAY))
    time.sleep(PAUSE)
    return stored


class _Embedder:
    def __init__(self):
        self.pushed = Handoff("search-vectors", self.run)  # the ids this process pushed that wait for their vectors

    def add(self, packet_id: str) -> None:
        self.pushed.add(packet_id)

    def run(self) -> None:
        while True:
            ids = self.pushed.take(after=GATHER)
            try:
                embed_waiting(ids)
                embed_waiting(pushed_before=timezone.now() - STRAY)
            except Exception:
                # They still wait: a later wake's stray sweep, a search, or ltm_embed embeds them.
                logger.exception("search vectors: the waiting packets were not embedded")
            finally:
                # This thread's connection, closed while it sleeps: a connection kept open would
                # hold a PostgreSQL session (and keep a test database from being dropped).
                connections.close_all()


_embedder = _Embedder()
