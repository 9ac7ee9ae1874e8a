"""packets.sqlite_writers: writers of one SQLite file take turns on a lock, so a second writer waits
for the first instead of finding the database locked; the write-ahead log is checkpointed by a
thread, not by a writer's commit; a turn that writes what can be rebuilt does not wait for the
disk."""

import shutil
import sqlite3
import threading
import time
from contextlib import closing, nullcontext
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.db import connection

from packets import sqlite_writers
from packets.sqlite_writers import write_turn


def database(path, vendor="sqlite", in_memory=False, raw=None):
    """What write_turn reads of a Django connection (`raw`: the sqlite3 connection its cursors use)."""
    return SimpleNamespace(
        vendor=vendor,
        is_in_memory_db=lambda: in_memory,
        settings_dict={"NAME": str(path)},
        cursor=lambda: closing(raw.cursor()),
        in_atomic_block=raw is not None and raw.in_transaction,
    )


def hub_connection(path):
    """A connection to a new WAL database at `path` that checkpoints as the hub's connections do."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous = NORMAL")  # these tests are not about the commits' syncs
    db.execute(f"PRAGMA wal_autocheckpoint={settings.SQLITE_WAL_BACKSTOP}")
    db.execute("CREATE TABLE IF NOT EXISTS t (data BLOB)")
    return db


def write_pages(db, path, turns=40):
    """Write about 40 pages a turn (4 KB rows); the database file's size after each commit."""
    sizes = []
    for _ in range(turns):
        with write_turn(database(path, raw=db)):
            db.execute("BEGIN IMMEDIATE")
            db.executemany("INSERT INTO t VALUES (randomblob(4000))", [()] * 40)
            db.execute("COMMIT")
        sizes.append(path.stat().st_size)
    return sizes


def eventually(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.05)


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


@pytest.mark.django_db
def test_the_hubs_sqlite_connections_leave_checkpoints_to_the_backstop():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's own setting")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_autocheckpoint")
        assert cursor.fetchone()[0] == settings.SQLITE_WAL_BACKSTOP > 1000  # SQLite's default: 1000


def test_no_writers_commit_checkpoints_the_log_the_process_thread_does(tmp_path, monkeypatch):
    path = tmp_path / "db.sqlite3"
    db = hub_connection(path)
    before = path.stat().st_size
    woken = []
    monkeypatch.setattr(sqlite_writers, "_checkpointer", SimpleNamespace(wake=woken.append))
    # 1,600 pages: SQLite's default would have had one of these commits copy the log into the file.
    assert write_pages(db, path) == [before] * 40
    assert woken == [str(path)] * 40
    checkpointer = sqlite_writers._Checkpointer()
    checkpointer.wake(str(path))
    eventually(lambda: path.stat().st_size > 1600 * 4096)
    alone = tmp_path / "copy.sqlite3"  # the database file without its log: the rows are in it
    shutil.copy(path, alone)
    assert sqlite3.connect(alone).execute("SELECT count(*) FROM t").fetchone()[0] == 1600
    # The log was copied whole, so the next writer starts it again from its beginning: as many
    # pages again leave it about as long, not twice as long.
    log = tmp_path / "db.sqlite3-wal"
    first_round = log.stat().st_size
    write_pages(db, path)
    checkpointer.wake(str(path))
    eventually(lambda: path.stat().st_size > 3200 * 4096)
    assert log.stat().st_size < 1.5 * first_round


def test_a_turn_that_writes_what_can_be_rebuilt_does_not_wait_for_the_disk(tmp_path):
    path = tmp_path / "db.sqlite3"
    db = hub_connection(path)
    db.execute("PRAGMA synchronous = FULL")

    def synchronous():
        return db.execute("PRAGMA synchronous").fetchone()[0]

    with write_turn(database(path, raw=db)):
        assert synchronous() == 2  # FULL: a push's commit waits until its log is on disk
    with write_turn(database(path, raw=db), durable=False):
        assert synchronous() == 1  # NORMAL: the next durable commit or checkpoint syncs it
    assert synchronous() == 2
    with pytest.raises(RuntimeError), write_turn(database(path, raw=db), durable=False):
        raise RuntimeError("the batch failed")
    assert synchronous() == 2
    db.execute("BEGIN IMMEDIATE")  # a transaction of the caller's: its commit may hold a push
    with write_turn(database(path, raw=db), durable=False):
        assert synchronous() == 2
    db.execute("COMMIT")
