"""Writers of one SQLite database file take turns on a file lock beside it, and a thread of each
writing process checkpoints the write-ahead log, so that the writers' commits need not.

SQLite lets one connection write at a time. Another that finds the database locked sleeps and
tries again (1 ms, then 2, 5, 10 and longer, while its busy timeout lasts), so two web workers
pushing at once often sleep far longer than the write they wait for. A writer that waits on this
lock instead waits in the kernel and starts the moment the one before it ends.

Only the frequent writes take it (the push's statement, the batches of vectors that follow pushes,
and the search index's deletion of the changes it took in: packets.search); any other writer still meets SQLite's own busy
wait, which stays correct beside it. On PostgreSQL and on an in-memory SQLite database (the
tests') it does nothing.

Checkpoints. By default the commit that takes the log past 1000 pages copies them into the
database file and syncs it while its client waits: that push is the slow one. The hub's
connections leave that to a much longer log (hub/settings/database.py: SQLITE_WAL_BACKSTOP), and
a moment after a turn (CHECKPOINT_AFTER) this process's checkpointer thread copies the log beside
the writers, who go on committing meanwhile. The next writer that finds the log copied whole
starts it again from its beginning; while pushes keep coming, the commit that reaches the
backstop does, after copying only the few pages the thread has not.

A turn that writes only what can be redone (durable=False: the search index's deletions, the
vectors) commits without waiting for the disk: the next durable commit, or the checkpoint, syncs
it, and a power cut may lose it together with the marks that say it was done, so it is done
again. A push's commit still waits for the disk (LTM_SQLITE_SYNCHRONOUS).
"""

import fcntl
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager, nullcontext

from core.handoff import Handoff

CHECKPOINT_AFTER = 0.25  # seconds between a turn and the checkpoint that follows it

logger = logging.getLogger(__name__)

# One open lock file per thread and database: flock excludes open files, not processes or
# threads, so the file is opened in the thread that uses it (after the server forked its workers).
_open = threading.local()


def write_turn(connection, *, durable: bool = True):
    """A context manager that holds this database's writer lock while its block runs, on a SQLite
    file. durable=False: what the block writes can be rebuilt, and its commit need not wait for
    the disk (the module's docstring)."""
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return nullcontext()
    return _write_turn(connection, durable=durable)


@contextmanager
def _write_turn(connection, *, durable: bool):
    path = connection.settings_dict["NAME"]
    with _turn(f"{path}-writers.lock"):
        # Inside a transaction the commit is the caller's, and may hold what must not be lost.
        if durable or connection.in_atomic_block:
            yield
        else:
            with _synchronous_normal(connection):
                yield
    _checkpointer.wake(path)


@contextmanager
def _synchronous_normal(connection):
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        level = cursor.fetchone()[0]
        cursor.execute("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA synchronous = {int(level)}")


@contextmanager
def _turn(path: str):
    if not hasattr(_open, "files"):
        _open.files = {}
    files, key = _open.files, (os.getpid(), path)
    if key not in files:
        files[key] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(files[key], fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(files[key], fcntl.LOCK_UN)


def checkpoint(database: sqlite3.Connection) -> None:
    """Copy what the log holds into the database file, beside the writers (PASSIVE)."""
    database.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()


class _Checkpointer:
    """A thread per process that checkpoints each database a moment after a turn wrote to it."""

    def __init__(self):
        self.written = Handoff("sqlite-checkpoint", self.run)  # the databases written since their last checkpoint

    def wake(self, path: str) -> None:
        self.written.add(path)

    def run(self) -> None:
        databases = {}
        while True:
            paths = self.written.take(after=CHECKPOINT_AFTER)
            for path in paths:
                try:
                    if path not in databases:
                        # Its own connection: a checkpoint reads and writes no row, and syncs
                        # the log before and the database file after its copy (FULL).
                        databases[path] = sqlite3.connect(path, timeout=20)
                        databases[path].execute("PRAGMA synchronous = FULL")
                    checkpoint(databases[path])
                except sqlite3.Error:
                    # The log stays whole; the next turn wakes this again, and past the backstop a
                    # commit checkpoints it.
                    logger.exception("sqlite: the write-ahead log of %s was not checkpointed", path)


_checkpointer = _Checkpointer()
