"""SQLite's search index is written in batches (migrations/0012_sqlite_search_index_in_batches.py):
a push names its packet as waiting, SQLITE_BATCH waiting packets are indexed together, and a search
first indexes whatever waits, so it still finds every packet pushed before it."""

import importlib

import pytest
from django.db import connection

from packets import selectors
from packets.services import packet_delete, packet_push
from packets.testing import packet_v02

pytestmark = pytest.mark.django_db

BATCHES = importlib.import_module("packets.migrations.0012_sqlite_search_index_in_batches")


@pytest.fixture(autouse=True)
def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL indexes each packet in its own statement (a generated column)")


def rows(sql: str) -> list:
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def waiting() -> set[str]:
    return {packet_id for (packet_id,) in rows("SELECT packet_id FROM packets_search_waiting")}


def indexed() -> set[str]:
    return {
        packet_id
        for (packet_id,) in rows("SELECT d.packet_id FROM packets_search s JOIN packets_search_doc d ON d.id = s.rowid")
    }


def found(viewer, text: str) -> list[str]:
    return [hit.packet.id for hit in selectors.packet_text_search(viewer=viewer, text=text)]


def push(alice, number: int, goal: str) -> str:
    packet = packet_v02(id=f"01BATCH{number:013d}", goal=goal)
    packet_push(actor=alice, packet=packet)
    return packet["id"]


def test_a_push_waits_for_the_index_and_a_search_indexes_it_first(alice):
    pid = push(alice, 1, "Teach the heron to fish")
    assert waiting() == {pid} and indexed() == set()
    assert found(alice, "heron") == [pid]
    assert waiting() == set() and indexed() == {pid}


def test_a_full_batch_is_indexed_by_the_push_that_fills_it(alice):
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCHES.SQLITE_BATCH - 1)]
    assert indexed() == set() and waiting() == set(ids)
    ids.append(push(alice, BATCHES.SQLITE_BATCH, "the last wren"))
    assert waiting() == set() and indexed() == set(ids)


def test_a_repush_replaces_the_indexed_words_at_the_next_search(alice):
    pid = push(alice, 1, "Teach the heron to fish")
    assert found(alice, "heron") == [pid]
    push(alice, 1, "Teach the wren to sing")
    assert waiting() == {pid}
    assert found(alice, "heron") == []
    assert found(alice, "wren") == [pid]
    assert len(rows("SELECT rowid FROM packets_search")) == 1


@pytest.mark.parametrize("searched_first", [True, False], ids=["indexed", "still-waiting"])
def test_a_deleted_packet_leaves_nothing_in_the_index(alice, searched_first):
    pid = push(alice, 1, "Teach the heron to fish")
    if searched_first:
        found(alice, "heron")
    packet_delete(actor=alice, packet_id=pid)
    assert waiting() == set() and indexed() == set()
    assert rows("SELECT packet_id FROM packets_search_doc") == []
    assert found(alice, "heron") == []


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


def test_a_batch_filled_by_a_repush_indexes_every_waiting_packet(alice):
    ids = [push(alice, number, f"wren number {number}") for number in range(BATCHES.SQLITE_BATCH - 1)]
    found(alice, "wren")  # all indexed
    ids = [push(alice, number, f"heron number {number}") for number in range(BATCHES.SQLITE_BATCH - 1)]
    assert indexed() == set(ids) and waiting() == set(ids)  # indexed with their old words, waiting
    ids.append(push(alice, BATCHES.SQLITE_BATCH, "the last heron"))
    assert waiting() == set()
    assert len(rows("SELECT rowid FROM packets_search")) == BATCHES.SQLITE_BATCH
    matching = "SELECT count(*) FROM packets_search WHERE packets_search MATCH '{}'"
    assert rows(matching.format("heron")) == [(BATCHES.SQLITE_BATCH,)]
    assert rows(matching.format("wren")) == [(0,)]
