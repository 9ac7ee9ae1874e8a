"""Helpers for the tests of search: push through the API, search, the ids found, the corpus the
quality tests (and the bench) push, and the eval set of recall by meaning with its nDCG@10 (read
by its test and by bench/recall_eval.py)."""

import json
import math
from pathlib import Path
from urllib.parse import quote

from django.db import connection

from packets.testing import packet_v02

# Written once by tests/make_search_corpus.py; read by the quality tests and the bench.
SEARCH_TESTS = Path(__file__).resolve().parent.parent / "tests" / "search"
CORPUS = SEARCH_TESTS / "search_corpus.jsonl"

# The eval set of recall by meaning (its test says what it holds); TWIN: each packet of a pair to
# the other, both relevant to a query meaning either.
PACKETS = [json.loads(line) for line in (SEARCH_TESTS / "recall_eval_packets.jsonl").read_text().splitlines()]
_EVAL = json.loads((SEARCH_TESTS / "recall_eval_queries.json").read_text())
QUERIES, PAIRS = _EVAL["queries"], _EVAL["pairs"]
TWIN = {a: b for a, b in PAIRS} | {b: a for a, b in PAIRS}


def push(api, team=None, **fields):
    packet = packet_v02(**fields)
    response = api.post("/v1/packets" + (f"?team={team}" if team else ""), packet)
    assert response.status_code == 201, response.content
    return packet["id"]


def search(api, q, **params):
    query = "&".join(f"{key}={quote(str(value))}" for key, value in {"q": q, **params}.items())
    return api.get(f"/v1/search?{query}")


def found(api, q, **params):
    response = search(api, q, **params)
    assert response.status_code == 200, response.content
    return [result["id"] for result in response.json()["results"]]


def statements_of(call) -> list[tuple[str, list]]:
    """The statements `call` runs on the default connection, with their parameters."""
    seen = []

    def capture(execute, sql, params, many, context):
        seen.append((sql, list(params or [])))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        call()
    return seen


def ndcg10(ranking: list[str], target: str) -> float:
    relevant = {target, TWIN[target]} if target in TWIN else {target}
    gain = sum(1 / math.log2(rank + 2) for rank, packet_id in enumerate(ranking[:10]) if packet_id in relevant)
    return gain / sum(1 / math.log2(rank + 2) for rank in range(len(relevant)))
