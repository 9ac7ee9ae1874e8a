"""Search quality on a fixed corpus (search_corpus.jsonl, 230 packets; make_search_corpus.py wrote
it): for each query, the packet a person means is among the first three results. Runs on the
database of DATABASE_URL, so CI checks PostgreSQL and a plain run checks SQLite."""

import json

import pytest
from django.db import connection

from packets.search.selectors import search_packets
from packets.services import packet_push
from packets.testing.search import CORPUS

pytestmark = pytest.mark.django_db


def corpus_id(key: str) -> str:
    return f"01CORPUS{key.upper():0<18}"


# (query as a person would type it, the key of the packet they mean)
QUERIES = [
    ("flaky test 107", "flaky107"),  # "#107" in the goal, words in another order
    ("test flaky checkout", "flaky107"),
    ("deadlock invoice numbers", "invoicedeadlock"),  # stems: numbers/number, invoice/invoices
    ("cache stampede", "stampede"),
    ("device flow polling interval", "deviceflow"),  # "interval" only in a decision
    ("ios push notification certificate", "apnscert"),
    ("thumbnail worker memory leak", "thumbleak"),
    ("EXIF buffers", "thumbleak"),  # only in an attempt's lesson
    ("webpack to vite build", "vite"),
    ("oomkilled nightly export", "oomkilled"),
    ("daylight saving recurring meetings", "dst"),
    ("excel csv accents", "csvexcel"),
    ("token bucket", "tokenbucket"),
    ("advisory locks", "advisory"),  # a decision's what
    ("bisect ORM upgrade regression", "ormbisect"),  # an attempt
    ("terraform iam", "terraformiam"),  # tags
    ("billing-gateway duplicate webhooks", "billinggw"),  # project name
    ('"connection pool exhausted"', "poolexhausted"),  # a phrase
    ("dark mode -android", "darkweb"),  # exclusion
    ("dark mode android", "darkandroid"),
    ("retried uploads", "retryupload"),  # stemming on both words
    ("shard events tenant", "shardevents"),  # an open question
    ("git bisect script", "gitbisect"),  # a method
    ("p95 latency search page", "p95search"),  # success criteria
    ("graphql n+1 dataloader", "graphqln1"),
    ("screen reader checkout", "screenreader"),
    ("polish plural forms", "polishplural"),
    ("WebSocket reconnect backoff", "wsreconnect"),
    ("okta saml", "oktasaml"),
    ("kafka consumer lag", "kafkalag"),
    ("rotate leaked password", "secretsrotate"),
    ("invoice pdf font", "pdfinvoice"),
    (corpus_id("vite"), "vite"),  # a pasted id
    (corpus_id("tokenbucket")[:12], "tokenbucket"),  # the start of one
]


@pytest.fixture
def corpus(alice):
    for line in CORPUS.read_text().splitlines():
        packet_push(actor=alice, packet=json.loads(line))
    return alice


def test_the_corpus_is_big_and_varied():
    packets = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    assert len(packets) >= 200
    assert len({p["goal"] for p in packets}) >= 200
    assert len(QUERIES) >= 20
    assert {corpus_id(key) for _, key in QUERIES} <= {p["id"] for p in packets}


def test_the_packet_meant_is_in_the_top_three(corpus, capsys):
    ranks, misses = [], []
    for query, key in QUERIES:
        found = [hit.packet.id for hit in search_packets(viewer=corpus, text=query, limit=10)]
        rank = found.index(corpus_id(key)) + 1 if corpus_id(key) in found else None
        ranks.append(rank)
        if rank is None or rank > 3:
            misses.append(f"{query!r}: {key} at {rank}, got {found[:3]}")
    first = sum(rank == 1 for rank in ranks)
    top3 = sum(rank is not None and rank <= 3 for rank in ranks)
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    with capsys.disabled():
        print(
            f"\nsearch quality on {connection.vendor}: {len(ranks)} queries, rank 1: {first}, "
            f"top 3: {top3}, mean reciprocal rank {mrr:.3f}"
        )
    assert not misses, "\n".join(misses)
