"""Recall by meaning, measured on the eval set beside this file, on the database of DATABASE_URL
(CI runs it on PostgreSQL, a plain run on SQLite), with the figures printed.

recall_eval_packets.jsonl: 84 packets on 73 distinct problems, 11 of them written twice in other
words (the pairs). recall_eval_queries.json: 30 queries that share no content word with the
packet they mean (checked below, with the stems and stop words of keyword search) and 10 in the
rare words of their packet, as a person would type them.

What must hold, in hybrid mode (the default): rare-word queries first (0.9 of them), hybrid's
nDCG@10 (a query's packet and its pair both relevant) at least both single modes', and the
paraphrase recall@5 and pairs in each other's top 3 of `related` that the model reaches. The
issue asks 0.80 of the paraphrases and every pair, which on this set only a transformer reached,
and none runs within the hub's means (the $5 VPS profile's memory, the CPU a push may cost);
docs/search.md has each candidate's figures, and these floors keep what the chosen model reaches
from slipping (bench/recall_eval.py prints the figures of other ways to average its token vectors)."""

import pytest
from django.db import connection

from packets.search import selectors
from packets.search.query import STOP_WORDS, WORD, stem
from packets.search.vector_queue import embed_waiting
from packets.services import packet_push
from packets.testing.search import PACKETS, PAIRS, QUERIES, TWIN, ndcg10

pytestmark = pytest.mark.django_db

RARE_WORDS_FIRST = 0.9
PARAPHRASE_RECALL_AT_5 = 0.55  # the issue asks 0.80 (see above)
PAIRS_IN_TOP_3 = 0.9  # the issue asks every pair (see above)


def words(value) -> set[str]:
    """The content words' stems of every text in a packet (or of a query)."""
    if isinstance(value, str):
        return {stem(word) for word in WORD.findall(value.lower()) if word not in STOP_WORDS}
    if isinstance(value, list):
        return set().union(set(), *(words(item) for item in value))
    if isinstance(value, dict):
        skip = {"id", "ltm_version", "created_at", "locked", "outcome"}
        return set().union(set(), *(words(item) for key, item in value.items() if key not in skip))
    return set()


def test_the_eval_set_is_what_it_says():
    by_id = {packet["id"]: packet for packet in PACKETS}
    assert len(PACKETS) - len(PAIRS) >= 60  # distinct problems
    assert len(QUERIES) >= 40 and len(PAIRS) >= 10
    paraphrases = [q for q in QUERIES if q["kind"] == "paraphrase"]
    assert len(paraphrases) >= 25 and sum(q["kind"] == "rare" for q in QUERIES) >= 10
    for query in paraphrases:
        assert not words(query["text"]) & words(by_id[query["target"]]), query["text"]


@pytest.fixture
def viewer(alice):
    for packet in PACKETS:
        packet_push(actor=alice, packet=packet)
    embed_waiting()
    return alice


def found(viewer, text: str, mode: str) -> list[str]:
    return [hit.packet.id for hit in selectors.search_packets(viewer=viewer, text=text, mode=mode, limit=10)]


def figures(viewer, mode: str) -> dict:
    paraphrase, rare, ndcg = [], [], []
    for query in QUERIES:
        ranking = found(viewer, query["text"], mode)
        if query["kind"] == "paraphrase":
            paraphrase.append(query["target"] in ranking[:5])
        else:
            rare.append(ranking[:1] == [query["target"]])
        ndcg.append(ndcg10(ranking, query["target"]))
    return {
        "paraphrase recall@5": sum(paraphrase) / len(paraphrase),
        "rare words first": sum(rare) / len(rare),
        "nDCG@10": sum(ndcg) / len(ndcg),
    }


def test_recall_by_meaning_against_keyword_search(viewer, capsys):
    by_mode = {mode: figures(viewer, mode) for mode in ("hybrid", "keyword", "semantic")}
    pairs = [
        twin in [hit.packet.id for hit in selectors.related_packets(viewer=viewer, packet_id=packet_id, limit=3)]
        for packet_id, twin in TWIN.items()
    ]
    with capsys.disabled():
        print(f"\nrecall by meaning on {connection.vendor}, {len(PACKETS)} packets, {len(QUERIES)} queries:")
        for mode, values in by_mode.items():
            print(f"  {mode:8}  " + ", ".join(f"{name} {value:.3f}" for name, value in values.items()))
        print(f"  pairs in each other's related top 3: {sum(pairs)} of {len(pairs)}")
    hybrid = by_mode["hybrid"]
    assert hybrid["rare words first"] >= RARE_WORDS_FIRST
    assert hybrid["nDCG@10"] >= by_mode["keyword"]["nDCG@10"]
    assert hybrid["nDCG@10"] >= by_mode["semantic"]["nDCG@10"]
    assert hybrid["paraphrase recall@5"] >= PARAPHRASE_RECALL_AT_5
    assert hybrid["paraphrase recall@5"] > by_mode["keyword"]["paraphrase recall@5"]
    assert sum(pairs) / len(pairs) >= PAIRS_IN_TOP_3
