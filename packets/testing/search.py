"""Helpers for the tests of search: push through the API, search, the ids found, and the corpus
the quality tests (and the bench) push."""

from pathlib import Path
from urllib.parse import quote

from django.db import connection

from packets.testing import packet_v02

# Written once by tests/make_search_corpus.py; read by the quality tests and the bench.
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "search" / "search_corpus.jsonl"


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
