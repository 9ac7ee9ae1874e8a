"""core.sqlite_writers: writers of one SQLite file take turns on a lock, so a second writer waits
for the first instead of finding the database locked."""

import sqlite3
import threading
import time
from contextlib import nullcontext
from types import SimpleNamespace

from core.sqlite_writers import write_turn


def database(path, vendor="sqlite", in_memory=False):
    """What write_turn reads of a Django connection."""
    return SimpleNamespace(vendor=vendor, is_in_memory_db=lambda: in_memory, settings_dict={"NAME": str(path)})


def test_a_second_writer_waits_its_turn_instead_of_finding_the_database_locked(tmp_path):
    path = tmp_path / "db.sqlite3"
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE t (writer TEXT)")
    setup.commit()
    setup.close()
    first_writing, errors = threading.Event(), []

    def first():
        db = sqlite3.connect(path, timeout=0, isolation_level=None)
        with write_turn(database(path)):
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO t VALUES ('first')")
            first_writing.set()
            time.sleep(0.3)  # the write lock held, as a long write would
            db.execute("COMMIT")

    def second():
        # No busy timeout: without the turn, this write fails at once with "database is locked".
        db = sqlite3.connect(path, timeout=0, isolation_level=None)
        first_writing.wait()
        try:
            with write_turn(database(path)):
                db.execute("INSERT INTO t VALUES ('second')")
        except sqlite3.OperationalError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert errors == []
    assert [row[0] for row in sqlite3.connect(path).execute("SELECT writer FROM t ORDER BY rowid")] == [
        "first",
        "second",
    ]


def test_postgresql_and_an_in_memory_database_take_no_lock(tmp_path):
    assert isinstance(write_turn(database(tmp_path / "pg", vendor="postgresql")), nullcontext)
    assert isinstance(write_turn(database(tmp_path / "memory", in_memory=True)), nullcontext)
    assert list(tmp_path.iterdir()) == []
