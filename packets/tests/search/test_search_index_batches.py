"""SQLite's search index is written in batches, off the push, in a database of its own
(packets/search/queue.py, packets/search/sqlite_index.py): a push names its packet as waiting and
never indexes, however many wait; the process's indexing thread indexes BATCH waiting packets a
transaction, and a search first indexes whatever waits, so it still finds every packet pushed
before it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from packets.search import queue as search_queue
from packets.search import sqlite_index
from packets.search.queue import BATCH, index_batch, index_soon
from packets.search.selectors import search_packets
from packets.services import packet_delete, packet_push
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL indexes each packet in its own statement (a generated column)")
    sqlite_index.catch_up()  # built for this database: each test's search database starts empty


def rows(sql: str) -> list:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def waiting() -> set[str]:
    return {packet_id for (packet_id,) in rows("SELECT packet_id FROM packets_search_waiting")}


def indexed() -> set[str]:
    return {
        packet_id
        for (packet_id,) in rows(
            "SELECT d.packet_id FROM search.packets_search s JOIN search.packets_search_doc d ON d.id = s.rowid"
        )
    }


def found(viewer, text: str) -> list[str]:
    return [hit.packet.id for hit in search_packets(viewer=viewer, text=text, mode="keyword")]


def push(alice, number: int, goal: str) -> str:
    packet = packet_v02(id=f"01BATCH{number:013d}", goal=goal)
    packet_push(actor=alice, packet=packet)
    return packet["id"]


def test_a_push_waits_for_the_index_and_a_search_indexes_it_first(alice):
    pid = push(alice, 1, "Teach the heron to fish")
    assert waiting() == {pid} and indexed() == set()
    assert found(alice, "heron") == [pid]
    assert waiting() == set() and indexed() == {pid}


def test_no_push_indexes_however_many_wait(alice):
    """The push that made a batch's worth wait used to index them all while its client waited."""
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCH + 1)]
    assert indexed() == set() and waiting() == set(ids)


def test_a_batch_indexes_the_oldest_waiting_ids_and_says_how_many_still_wait(alice):
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCH + 3)]
    assert index_batch() == 3
    assert indexed() == set(ids[:BATCH]) and waiting() == set(ids[BATCH:])
    assert index_batch() == 0
    assert indexed() == set(ids) and waiting() == set()
    assert found(alice, "wren") and index_batch() == 0  # nothing waits: nothing to do


def test_the_thread_leaves_less_than_a_batch_while_pushes_keep_coming(alice):
    """Each worker's thread looks: the second to look must not index the few pushed since the
    first, a segment of FTS5's index each. The rest waits for more, or for LATEST."""
    indexer = search_queue._Indexer()
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCH + 3)]
    indexer.look(pushed=True)
    assert waiting() == set(ids[BATCH:])
    indexer.look(pushed=True)
    assert waiting() == set(ids[BATCH:])
    indexer.short_since -= search_queue.LATEST
    indexer.look(pushed=True)
    assert waiting() == set() and indexer.short_since is None


def test_the_thread_indexes_the_rest_once_the_pushes_stop(alice):
    indexer = search_queue._Indexer()
    ids = [push(alice, number, f"wren number {number}") for number in range(3)]
    indexer.look(pushed=True)
    assert waiting() == set(ids)
    indexer.look(pushed=False)
    assert waiting() == set() and indexed() == set(ids)


def test_a_push_asks_for_the_index_once_it_is_committed(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        push(alice, 1, "Teach the heron to fish")
    assert index_soon in callbacks


def test_no_indexing_thread_for_an_in_memory_database(alice):
    """The tests' database: nothing else could see what waits in it."""
    index_soon()
    assert search_queue._indexer.started_in is None


def test_a_repush_replaces_the_indexed_words_at_the_next_search(alice):
    pid = push(alice, 1, "Teach the heron to fish")
    assert found(alice, "heron") == [pid]
    push(alice, 1, "Teach the wren to sing")
    assert waiting() == {pid}
    assert found(alice, "heron") == []
    assert found(alice, "wren") == [pid]
    assert len(rows("SELECT rowid FROM search.packets_search")) == 1


@pytest.mark.parametrize("searched_first", [True, False], ids=["indexed", "still-waiting"])
def test_a_deleted_packet_leaves_nothing_in_the_index(alice, searched_first):
    pid = push(alice, 1, "Teach the heron to fish")
    if searched_first:
        found(alice, "heron")
    packet_delete(actor=alice, packet_id=pid)
    assert found(alice, "heron") == []
    assert waiting() == set() and indexed() == set()
    assert rows("SELECT packet_id FROM search.packets_search_doc") == []


def test_a_search_with_nothing_waiting_writes_nothing(alice):
    push(alice, 1, "Teach the heron to fish")
    found(alice, "heron")
    statements = []
    connection.ensure_connection()
    connection.connection.set_trace_callback(statements.append)
    try:
        assert found(alice, "heron")
    finally:
        connection.connection.set_trace_callback(None)
    assert not [sql for sql in statements if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


def test_a_repush_of_a_packet_still_waiting_is_stored_and_indexed_once(api_as, alice):
    """The push's own upsert fires the trigger that names the packet waiting: a second push of a
    packet that waits already must neither fail nor name it twice."""
    api = api_as(alice)
    packet = packet_v02(id="01BATCH0000000000001", goal="Teach the heron to fish")
    assert api.post("/v1/packets", packet).status_code == 201
    assert api.post("/v1/packets", dict(packet, goal="Teach the wren to sing")).status_code == 201
    assert waiting() == {packet["id"]}
    assert found(alice, "wren") == [packet["id"]] and found(alice, "heron") == []


def test_a_batch_of_repushed_packets_replaces_their_words(alice):
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCH)]
    found(alice, "wren")  # all indexed
    ids = [push(alice, number, f"heron number {number}") for number in range(BATCH)]
    assert indexed() == set(ids) and waiting() == set(ids)  # indexed with their old words, waiting
    assert index_batch() == 0
    assert waiting() == set()
    assert len(rows("SELECT rowid FROM search.packets_search")) == BATCH
    matching = "SELECT count(*) FROM search.packets_search WHERE packets_search MATCH '{}'"
    assert rows(matching.format("heron")) == [(BATCH,)]
    assert rows(matching.format("wren")) == [(0,)]


def test_a_change_made_while_a_batch_reads_waits_for_the_next_one(alice):
    """The index records the last change it took in; one made after its snapshot is not lost."""
    pid = push(alice, 1, "Teach the heron to fish")
    assert index_batch() == 0
    push(alice, 1, "Teach the wren to sing")
    [(through,)] = rows("SELECT through FROM search.packets_search_state")
    assert rows(f"SELECT packet_id FROM packets_search_waiting WHERE seq > {through}") == [(pid,)]
    assert found(alice, "wren") == [pid] and found(alice, "heron") == []


def test_an_index_built_for_another_generation_of_the_database_is_rebuilt(alice):
    """A restored backup or a copied database file meets a search file built for another: the
    generation token tells, and the index is built again from the packets."""
    pid = push(alice, 1, "Teach the heron to fish")
    assert found(alice, "heron") == [pid]
    with connection.cursor() as cursor:  # what another database's index would hold
        cursor.execute("INSERT INTO search.packets_search_doc (packet_id) VALUES ('01STALE')")
        cursor.execute("UPDATE packets_search_generation SET token = 'another'")
    assert found(alice, "heron") == [pid]
    assert rows("SELECT packet_id FROM search.packets_search_doc") == [(pid,)]
    assert rows("SELECT generation FROM search.packets_search_state") == [("another",)]


def test_the_hubs_own_database_holds_no_index():
    """Only the list of changes: the index and its rowids live in the search database."""
    tables = {
        name
        for (name,) in rows("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name LIKE 'packets_search%'")
    }
    assert tables == {"packets_search_waiting", "packets_search_generation"}
    assert sqlite_index.search_file("/srv/ltm/db.sqlite3") == "/srv/ltm/db.search.sqlite3"


def test_the_index_is_written_and_read_under_django_s_debug_cursor(alice):
    """With DEBUG on, Django formats each statement's parameters into its text for the log."""
    pid = push(alice, 1, "Teach the heron to fish")
    with CaptureQueriesContext(connection) as statements:
        assert found(alice, "heron") == [pid]
    assert any("packets_search_waiting" in statement["sql"] for statement in statements)
