"""SQLite's search index, in a database file of its own beside the hub's (`db.sqlite3` →
`db.search.sqlite3`), so that writing it never holds the lock that pushes wait for.

SQLite lets one connection write to a file at a time. With the index inside the hub's file, every
batch of the index held that lock for milliseconds (longer when FTS5 merged its segments), and the
push that arrived meanwhile waited, then synced the batch's pages with its own commit.

What lives where:
- the hub's file: `packets_search_waiting`, one row per change to a packet (pushed, changed or
  deleted), numbered in order (`seq`), written by the packet table's own triggers (migration
  0016); and `packets_search_generation`, a token that changes whenever the file is made anew;
- the search file (a cache: deleting it loses nothing): the FTS5 table `packets_search`, the
  rowid of each packet's row (`packets_search_doc`: a packet's own id is text), and
  `packets_search_state`: the generation it was built for and the last `seq` it indexed.

Every connection of the hub attaches the search file as `search`, read-only, so a search joins
the index to the packets in one statement, and a transaction of the hub (IMMEDIATE) never takes
the search file's lock. The index is written by a connection of its own per thread (`_writer`),
which attaches the hub's file read-only: a batch reads the waiting changes and the packets in one
snapshot, writes the index and the last `seq` it covers in one durable commit, and only then
deletes those changes from the hub's file, in a short turn of its own. A change made after the
snapshot has a larger `seq` and waits for the next batch. A search file built for another
generation (a restored backup, a copied file) is rebuilt from the packets.

The tests' in-memory database has an in-memory search database beside it, attached read-write,
and written through the test's own connection, so a test's transaction covers both.
"""

import importlib
import json
import os
import sqlite3
import threading
import urllib.parse
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, transaction
from django.db.backends.signals import connection_created
from django.dispatch import receiver

from packets.sqlite_writers import write_turn

# The text each column of the index holds, as it has since the index began.
_columns = importlib.import_module("packets.migrations.0005_search").sqlite_columns

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS {schema}.packets_search_doc (id INTEGER PRIMARY KEY, packet_id TEXT NOT NULL UNIQUE)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS {schema}.packets_search USING fts5("
    "goal, tags, context, details, tokenize = 'porter unicode61 remove_diacritics 2')",
    "CREATE TABLE IF NOT EXISTS {schema}.packets_search_state (generation TEXT, through INTEGER NOT NULL)",
    "INSERT INTO {schema}.packets_search_state (generation, through) "
    "SELECT NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM {schema}.packets_search_state)",
]

# Whether the index was built for this generation of the hub's file and has every change up to
# `seq`; the changes after it, at most `%s` of them.
_BEHIND = (
    "SELECT CASE WHEN (SELECT generation FROM search.packets_search_state) "
    "IS (SELECT token FROM packets_search_generation) "
    "THEN (SELECT count(*) FROM (SELECT 1 FROM packets_search_waiting "
    "WHERE seq > (SELECT through FROM search.packets_search_state) LIMIT %s)) ELSE -1 END"
)

# The packets of one batch, in the JSON array `%s`, indexed anew (a deleted one leaves the index).
_INDEX = [
    "DELETE FROM search.packets_search WHERE rowid IN "
    "(SELECT id FROM search.packets_search_doc WHERE packet_id IN (SELECT value FROM json_each(%s)))",
    "DELETE FROM search.packets_search_doc WHERE packet_id IN (SELECT value FROM json_each(%s)) "
    "AND packet_id NOT IN (SELECT id FROM packets_packet)",
    "INSERT INTO search.packets_search_doc (packet_id) SELECT p.id FROM packets_packet p "
    "WHERE p.id IN (SELECT value FROM json_each(%s)) "
    "AND NOT EXISTS (SELECT 1 FROM search.packets_search_doc d WHERE d.packet_id = p.id)",
    f"INSERT INTO search.packets_search (rowid, goal, tags, context, details) SELECT d.id, {_columns('p')} "
    "FROM search.packets_search_doc d JOIN packets_packet p ON p.id = d.packet_id "
    "WHERE d.packet_id IN (SELECT value FROM json_each(%s))",
]

_REBUILD = [
    "DROP TABLE search.packets_search",
    "DROP TABLE search.packets_search_doc",
    *[statement.format(schema="search") for statement in _SCHEMA[:2]],
    "INSERT INTO search.packets_search_doc (packet_id) SELECT id FROM packets_packet",
    f"INSERT INTO search.packets_search (rowid, goal, tags, context, details) SELECT d.id, {_columns('p')} "
    "FROM search.packets_search_doc d JOIN packets_packet p ON p.id = d.packet_id",
    "UPDATE search.packets_search_state SET generation = (SELECT token FROM packets_search_generation), "
    "through = (SELECT coalesce(max(seq), 0) FROM packets_search_waiting)",
]


def search_file(name) -> str:
    """The search database beside the hub's database `name` (a path, or an in-memory URI)."""
    name = str(name)
    if name == ":memory:":
        return name
    if name.startswith("file:"):
        path, _, query = name.partition("?")
        return f"{path}_search?{query}"
    path = Path(name)
    return str(path.with_name(f"{path.stem}.search{path.suffix}" if path.suffix else f"{path.name}.search"))


def _uri(path: str, mode: str) -> str:
    return f"file:{urllib.parse.quote(os.path.abspath(path))}?mode={mode}"


@receiver(connection_created, dispatch_uid="packets-search-attach")
def attach_search_index(sender, connection, **_signal) -> None:
    """Every SQLite connection of the hub sees the index as `search` (read-only but in the tests)."""
    if connection.vendor != "sqlite":
        return
    name = connection.settings_dict["NAME"]
    database = connection.connection
    if connection.is_in_memory_db():
        database.execute("ATTACH DATABASE ? AS search", [search_file(name)])
        for statement in _SCHEMA:
            database.execute(statement.format(schema="search"))
        return
    path = search_file(name)
    if not os.path.exists(path):
        _open_search_file(path).close()
    database.execute("ATTACH DATABASE ? AS search", [_uri(path, "ro")])


def _open_search_file(path: str):
    """A connection to the search file as `main`, made with its tables if it was missing."""
    database = sqlite3.connect(path, timeout=20, isolation_level=None)
    database.execute("PRAGMA journal_mode = WAL")
    for statement in _SCHEMA:
        database.execute(statement.format(schema="main"))
    return database


_writers = threading.local()


def _writer():
    """This thread's connection that writes the index: the search file as `search`, the hub's
    file read-only. Opened in the thread that uses it, after the server forked its workers."""
    name = connection.settings_dict["NAME"]
    key = (os.getpid(), str(name))
    if getattr(_writers, "key", None) != key:
        _open_search_file(search_file(name)).close()
        database = sqlite3.connect(":memory:", timeout=20, isolation_level=None, uri=True)
        database.execute("ATTACH DATABASE ? AS search", [_uri(search_file(name), "rw")])
        # A batch deletes its changes from the hub's file once its commit is on the disk.
        database.execute("PRAGMA search.synchronous = FULL")
        database.execute("ATTACH DATABASE ? AS hub", [_uri(str(name), "ro")])
        _writers.key, _writers.database = key, database
    return _writers.database


@contextmanager
def _indexing():
    """A function that runs a statement (with %s for its parameters, as Django's) of the index's
    writer, inside one transaction."""
    if connection.is_in_memory_db():
        with transaction.atomic(), connection.cursor() as cursor:

            def run(sql, params=()):
                cursor.execute(sql, params)
                return cursor.fetchall()

            yield run
        return
    database = _writer()
    database.execute("BEGIN IMMEDIATE")
    try:
        yield lambda sql, params=(): database.execute(sql.replace("%s", "?"), params).fetchall()
    except BaseException:
        database.execute("ROLLBACK")
        raise
    database.execute("COMMIT")


def behind(most: int) -> int:
    """How many changes the index has yet to take in, up to `most` (`most` when it must be rebuilt)."""
    with connection.cursor() as cursor:
        cursor.execute(_BEHIND, [most])
        count = cursor.fetchone()[0]
    return most if count < 0 else count


def index(most: int | None) -> int:
    """Take in the next `most` waiting changes (all of them with None), or rebuild the index if
    it was built for another generation of the hub's file; how many changes still wait (up to
    `most`, or 1 when some do)."""
    taken = False
    with _indexing() as run:
        [(left,)] = run(_BEHIND, [1])
        if left < 0:  # built for another generation, or never
            for statement in _REBUILD:
                run(statement)
            taken = True
        else:
            limit = -1 if most is None else most
            [(through,)] = run("SELECT through FROM search.packets_search_state")
            changes = run(
                "SELECT seq, packet_id FROM packets_search_waiting WHERE seq > %s ORDER BY seq LIMIT %s",
                [through, limit],
            )
            if changes:
                ids = _json([packet_id for _, packet_id in changes])
                for statement in _INDEX:
                    run(statement, [ids])
                run("UPDATE search.packets_search_state SET through = %s", [changes[-1][0]])
                taken = True
        [(through,)] = run("SELECT through FROM search.packets_search_state")
    if taken:
        _forget_through(through)
    return behind(1 if most is None else most)


def catch_up() -> None:
    """Take in every change still waiting, so that a search sees every packet pushed before it.
    Only a search with something waiting writes."""
    if behind(1):
        index(None)


def optimize() -> None:
    """Merge the index's segments into one, as FTS5 would a little at a time on later writes."""
    with _indexing() as run:
        run("INSERT INTO search.packets_search (packets_search) VALUES ('optimize')")


def _forget_through(through: int) -> None:
    """Delete the changes the index has taken in from the hub's file: a short turn, which a
    power cut may undo (the next batch deletes them again)."""
    with write_turn(connection, durable=False), connection.cursor() as cursor:
        cursor.execute("DELETE FROM packets_search_waiting WHERE seq <= %s", [through])


def _json(values: list) -> str:
    return json.dumps(sorted(set(values)))
