"""The packets' vectors (packets.search.vectors and vector_queue): a push stores none and they are
written off the push, a re-push clears its vector, a search catches up on what waits, and
`manage.py ltm_embed` fills in the rest, idempotently."""

import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from django.utils import timezone

from packets.models import Packet
from packets.search import embedding, vectors
from packets.search.matrix import Matrix, matrix
from packets.search.selectors import search_packets
from packets.search.vector_queue import embed_waiting
from packets.services import packet_push
from packets.testing import packet_v02
from teams.testing import make_team

QUERY = "tests hang when the suite runs concurrently"
XDIST = "Stop pytest-xdist workers from deadlocking on the shared SQLite file"


def stored(packet_id: str):
    return Packet.objects.filter(pk=packet_id).values_list("embedding", flat=True).get()


@pytest.mark.django_db
def test_a_push_stores_no_vector_and_what_waits_is_embedded_off_it(alice):
    packet = packet_v02(goal=XDIST)
    packet_push(actor=alice, packet=packet)
    assert stored(packet["id"]) is None
    assert [row[0] for row in vectors.waiting()] == [packet["id"]]
    assert embed_waiting() == 1
    assert bytes(stored(packet["id"])) == embedding.packet_vector(packet)
    assert vectors.waiting() == []


@pytest.mark.django_db
def test_a_repush_clears_the_vector_until_it_is_embedded_again(alice):
    packet = packet_v02(goal=XDIST)
    packet_push(actor=alice, packet=packet)
    embed_waiting()
    packet_push(actor=alice, packet={**packet, "goal": "Invoice totals off by a cent"})
    assert stored(packet["id"]) is None
    embed_waiting()
    assert bytes(stored(packet["id"])) == embedding.packet_vector({**packet, "goal": "Invoice totals off by a cent"})


@pytest.mark.django_db
def test_a_vector_computed_from_a_text_pushed_over_meanwhile_is_not_stored(alice):
    packet = packet_v02(goal=XDIST)
    packet_push(actor=alice, packet=packet)
    rows = vectors.waiting()  # read: the old text
    packet_push(actor=alice, packet={**packet, "goal": "Invoice totals off by a cent"})
    assert vectors.embed_rows(rows) == 0
    assert stored(packet["id"]) is None  # still waits, for the new text


@pytest.mark.django_db
def test_a_search_by_meaning_first_embeds_what_waits(alice):
    packet = packet_v02(goal=XDIST, next_step="One database file per worker")
    packet_push(actor=alice, packet=packet)
    assert [hit.packet.id for hit in search_packets(viewer=alice, text=QUERY, mode="semantic")] == [packet["id"]]
    assert stored(packet["id"]) is not None


@pytest.mark.django_db
def test_only_recent_pushes_are_left_to_the_web_processes(alice):
    packet = packet_v02(goal=XDIST)
    packet_push(actor=alice, packet=packet)
    Packet.objects.filter(pk=packet["id"]).update(pushed_at=timezone.now() - vectors.RECENT * 2)
    assert vectors.waiting() == [] and embed_waiting() == 0
    assert [row[0] for row in vectors.waiting(recent_only=False)] == [packet["id"]]


@pytest.mark.django_db(transaction=True)
def test_a_push_is_found_by_meaning_within_five_seconds(alice):
    """Off the push: on PostgreSQL (and a SQLite file) the thread of the process that pushed embeds
    it; on the tests' in-memory SQLite, right after the push commits."""
    packet = packet_v02(goal=XDIST, next_step="One database file per worker")
    packet_push(actor=alice, packet=packet)
    deadline = time.monotonic() + 5
    while stored(packet["id"]) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stored(packet["id"]) is not None
    matrix.refresh()
    assert packet["id"] in matrix.rows


@pytest.mark.django_db
def test_ltm_embed_fills_what_is_missing_by_team_and_again_changes_nothing(alice, bob):
    make_team(alice, "alpha", members=[bob])
    personal, team_packet = packet_v02(goal=XDIST), packet_v02(goal="Invoice totals off by a cent")
    packet_push(actor=alice, packet=personal)
    packet_push(actor=alice, packet=team_packet, team=alice.memberships.get().team)
    Packet.objects.update(pushed_at=timezone.now() - vectors.RECENT * 2)  # pushed before vectors existed
    out = StringIO()
    call_command("ltm_embed", "--missing", "--team", "alpha", stdout=out)
    assert "1 packets to embed" in out.getvalue() and "done: 1 packets embedded" in out.getvalue()
    assert stored(team_packet["id"]) is not None and stored(personal["id"]) is None
    call_command("ltm_embed", "--missing", stdout=out)
    first = {p: bytes(stored(p)) for p in (personal["id"], team_packet["id"])}
    again = StringIO()
    call_command("ltm_embed", stdout=again)
    assert "done: 2 packets embedded" in again.getvalue()
    assert {p: bytes(stored(p)) for p in first} == first
    with pytest.raises(CommandError, match="no team 'nosuch'"):
        call_command("ltm_embed", "--team", "nosuch", stdout=StringIO())


@pytest.mark.django_db
@override_settings(LTM_SEMANTIC="off")
def test_with_ltm_semantic_off_nothing_is_embedded(alice):
    packet = packet_v02(goal=XDIST)
    packet_push(actor=alice, packet=packet)
    assert search_packets(viewer=alice, text=QUERY, mode="semantic") == []
    assert stored(packet["id"]) is None
    with pytest.raises(CommandError, match="LTM_SEMANTIC=off"):
        call_command("ltm_embed", stdout=StringIO())


def test_the_matrix_ranks_the_rows_within_reach_best_first_lazily():
    matrix = Matrix()
    now = timezone.now()
    rows = [
        (f"p{n}", embedding.to_bytes(v), now, "team-a" if n % 3 else None, "alice")
        for n, v in enumerate(_unit_rows(300))
    ]
    matrix.take(rows)
    query = embedding.from_bytes(rows[7][1])
    ranked = list(matrix.ranked(query, owner="alice", team_ids=["team-a"]))
    assert len(ranked) == 300 and ranked[0][0] == "p7"
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)
    # Within reach only: alice's personal packets (n % 3 == 0), team-a's, or the ids given.
    assert {p for p, _ in matrix.ranked(query, owner="alice")} == {f"p{n}" for n in range(0, 300, 3)}
    assert {p for p, _ in matrix.ranked(query, team_ids=["team-a"])} == {f"p{n}" for n in range(300) if n % 3}
    assert [p for p, _ in matrix.ranked(query, owner="bob", packet_ids=["p7", "nosuch"])] == ["p7"]
    assert list(matrix.ranked(query, team_ids=["team-b"])) == []
    # A re-embedded or moved packet keeps its row, with its new vector and place.
    matrix.take([("p7", embedding.to_bytes(-query), now, None, "bob")])
    assert len(matrix.ids) == 300 and next(iter(matrix.ranked(query, team_ids=["team-a"])))[0] != "p7"
    assert [p for p, _ in matrix.ranked(query, owner="bob")] == ["p7"]


def _unit_rows(count: int):
    import numpy as np

    rows = np.random.default_rng(7).normal(size=(count, embedding.DIMENSIONS)).astype("float32")
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.django_db
def test_a_moved_packet_is_found_by_meaning_where_it_went(alice, bob):
    from packets.services import packet_move

    core = make_team(alice, "core", members=[bob])
    packet = packet_v02(goal=XDIST, next_step="One database file per worker")
    packet_push(actor=alice, packet=packet)
    assert search_packets(viewer=bob, text=QUERY, mode="semantic") == []  # alice's own, so far
    packet_move(actor=alice, packet_id=packet["id"], team=core)
    assert [hit.packet.id for hit in search_packets(viewer=bob, text=QUERY, mode="semantic")] == [packet["id"]]


def test_past_exact_rows_the_nearest_by_signs_come_first_and_every_row_once(monkeypatch):
    from packets.search import matrix as matrix_module

    monkeypatch.setattr(matrix_module, "EXACT", 50)
    monkeypatch.setattr(matrix_module, "SHORTLIST", 20)
    many = Matrix()
    vectors = _unit_rows(300)
    many.take([(f"p{n}", embedding.to_bytes(v), timezone.now(), None, "alice") for n, v in enumerate(vectors)])
    query = embedding.from_bytes(embedding.to_bytes(vectors[42]))
    ranked = list(many.ranked(query, owner="alice"))
    assert ranked[0][0] == "p42" and len(ranked) == 300 == len({p for p, _ in ranked})
    shortlist = [score for _, score in ranked[:20]]
    assert shortlist == sorted(shortlist, reverse=True)  # the cosines of a window, best first


@pytest.mark.django_db
def test_the_thread_gives_way_before_each_packet_it_embeds(alice, monkeypatch):
    """vector_queue: each vector is computed once no request of the process is in progress
    (core.give_way), so that a request waits for one packet's vector at most, not a batch's."""
    from packets.search import vector_queue

    steps = []
    monkeypatch.setattr(vector_queue, "give_way", lambda at_most: steps.append(("give way", at_most)))
    vector = embedding.packet_vector
    monkeypatch.setattr(embedding, "packet_vector", lambda packet: steps.append("embed") or vector(packet))
    for goal in (XDIST, "Invoice totals off by a cent"):
        packet_push(actor=alice, packet=packet_v02(goal=goal))
    assert embed_waiting() == 2
    assert steps == [("give way", vector_queue.GIVE_WAY), "embed"] * 2


@pytest.mark.django_db
def test_a_process_embeds_the_packets_it_pushed_and_leaves_the_others_to_theirs(alice):
    """Each web process's thread takes the ids its own pushes gave it: the other processes'
    packets, which their own threads are about to embed, are not computed twice."""
    mine, theirs = packet_v02(goal=XDIST), packet_v02(goal="Invoice totals off by a cent")
    for packet in (mine, theirs):
        packet_push(actor=alice, packet=packet)
    assert embed_waiting([mine["id"]]) == 1
    assert stored(mine["id"]) is not None and stored(theirs["id"]) is None


@pytest.mark.django_db
def test_a_packet_left_waiting_by_its_process_is_embedded_by_any_other_after_a_while(alice):
    from packets.search.vector_queue import STRAY

    fresh, stray = packet_v02(goal=XDIST), packet_v02(goal="Invoice totals off by a cent")
    for packet in (fresh, stray):
        packet_push(actor=alice, packet=packet)
    Packet.objects.filter(pk=stray["id"]).update(pushed_at=timezone.now() - STRAY * 2)
    assert embed_waiting(pushed_before=timezone.now() - STRAY) == 1
    assert stored(stray["id"]) is not None and stored(fresh["id"]) is None


def test_the_thread_is_handed_the_ids_of_its_process_s_pushes(monkeypatch):
    from core import handoff
    from packets.search import vector_queue

    embedder = vector_queue._Embedder()
    monkeypatch.setattr(handoff.threading, "Thread", _NoThread)
    for packet_id in ("a", "b", "a"):
        embedder.add(packet_id)
    assert embedder.pushed.items == {"a", "b"}


class _NoThread:
    def __init__(self, **_kwargs):
        pass

    def start(self):
        pass
