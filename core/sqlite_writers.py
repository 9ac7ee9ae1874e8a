"""Writers of one SQLite database file take turns on a file lock beside it.

SQLite lets one connection write at a time. Another that finds the database locked sleeps and
tries again (1 ms, then 2, 5, 10 and longer, while its busy timeout lasts), so two web workers
pushing at once often sleep far longer than the write they wait for. A writer that waits on this
lock instead waits in the kernel and starts the moment the one before it ends.

Only the frequent writes take it (the push's statement, and the search index's batches that
follow pushes: packets.search_queue); any other writer still meets SQLite's own busy wait, which
stays correct beside it. On PostgreSQL and on an in-memory SQLite database
(the tests') it does nothing.
"""

import fcntl
import os
import threading
from contextlib import contextmanager, nullcontext

# One open lock file per thread and database: flock excludes open files, not processes or
# threads, so the file is opened in the thread that uses it (after the server forked its workers).
_open = threading.local()


def write_turn(connection):
    """A context manager that holds this database's writer lock while its block runs."""
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return nullcontext()
    return _turn(f"{connection.settings_dict['NAME']}-writers.lock")


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
