"""Recall by meaning on the quality test's eval set, for each way of pooling the hub's model.

The eval set and its figures are those of packets/tests/search/test_recall_quality.py: paraphrase
recall@5, rare words first, nDCG@10 (in hybrid and semantic mode) and each pair's other packet
in its top 3 by meaning. Each candidate is also measured on each half of the queries (even and
odd), so that one tuned on a half can be judged on the other, and the CPU it took per packet.

    python bench/recall_eval.py                  # a throw-away SQLite file
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ltm_recall python bench/recall_eval.py

It pushes the eval set for the user `recall-eval` (any packet with an id of the set is deleted
first) to rank by words in the database; each candidate ranks by meaning here, in numpy, and the
two rankings are fused by the hub's own fusion. Never point it at production.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def candidates(embedding) -> dict:
    """Each candidate: (a packet -> its unit vector, a query's text -> its unit vector)."""
    model = embedding.model()

    def unit(vectors):
        norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)

    def apart(weighted, dims=256):
        def embed(texts):
            return unit(model.embed(texts, weighted=weighted)[:, :dims])

        return (lambda packet: unit(embed(embedding.packet_texts(packet)).mean(axis=0)), lambda text: embed([text])[0])

    def together(weighted):
        def embed(text):
            return unit(model.embed([text], weighted=weighted)[0])

        return (lambda packet: embed(" ".join(embedding.packet_texts(packet))), embed)

    return {
        "plain mean, fields apart (WordLlama's pooling)": apart(False),
        "plain mean, one text": together(False),
        "plain mean, fields apart, 128 dimensions": apart(False, 128),
        "rank-weighted, fields apart (the hub's own functions)": (
            lambda packet: embedding.from_bytes(embedding.packet_vector(packet)),
            embedding.text_vector,
        ),
        "rank-weighted, one text": together(True),
        "rank-weighted, fields apart, 128 dimensions": apart(True, 128),
    }


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ltm-recall-eval-") as scratch:
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{scratch}/recall.sqlite3")
        report()


def report() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.test")
    from seeding import create_database_if_missing

    create_database_if_missing(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.db import connection

    from packets.search import embedding
    from packets.testing.search import PACKETS, QUERIES

    by_words = keyword_rankings()
    print(f"recall by meaning on {connection.vendor}, {len(PACKETS)} packets, {len(QUERIES)} queries")
    print("paraphrase recall@5 / rare words first / nDCG@10, in hybrid and semantic mode; pairs in top 3;")
    print("the hybrid recall@5 and nDCG@10 of each half of the queries; CPU ms per packet\n")
    for name, (packet_vector, query_vector) in candidates(embedding).items():
        print(f"{name}\n  {measure(packet_vector, query_vector, by_words)}")


def keyword_rankings() -> dict[str, list[str]]:
    """The eval set pushed, and each query's ranking by words (the ids fused in hybrid mode)."""
    from django.core.management import call_command

    from accounts.services import user_upsert
    from packets.models import Packet
    from packets.search import selectors
    from packets.services import packet_push
    from packets.testing.search import PACKETS, QUERIES

    call_command("migrate", verbosity=0)
    viewer, _ = user_upsert(username="recall-eval")
    Packet.objects.filter(id__in=[packet["id"] for packet in PACKETS]).delete()
    for packet in PACKETS:
        packet_push(actor=viewer, packet=packet)
    return {
        query["text"]: [
            hit.packet.id
            for hit in selectors.search_packets(
                viewer=viewer, text=query["text"], mode="keyword", limit=selectors.CANDIDATES
            )
        ]
        for query in QUERIES
    }


def measure(packet_vector, query_vector, by_words: dict[str, list[str]]) -> str:
    """One candidate's figures, as a line."""
    from packets.search import fusion, selectors
    from packets.testing.search import PACKETS, QUERIES, TWIN, ndcg10

    ids = [packet["id"] for packet in PACKETS]
    packet_vector(PACKETS[0])  # the model's pages read in before the clock starts
    started = time.process_time()
    matrix = np.stack([packet_vector(packet) for packet in PACKETS])
    per_packet = (time.process_time() - started) * 1000 / len(PACKETS)
    scores: dict[tuple[str, str], list[float]] = {}
    for index, query in enumerate(QUERIES):
        semantic = [ids[row] for row in np.argsort(-(matrix @ query_vector(query["text"])), kind="stable")]
        rankings = {"keyword": by_words[query["text"]], "semantic": semantic[: selectors.CANDIDATES]}
        hybrid = [fused.id for fused in fusion.fuse(rankings, limit=10)]
        half = "even" if index % 2 == 0 else "odd"
        for mode, ranking in (("hybrid", hybrid), ("semantic", semantic)):
            if query["kind"] == "paraphrase":
                found = query["target"] in ranking[:5]
            else:
                found = ranking[0] == query["target"]
            gain = ndcg10(ranking, query["target"])
            scores.setdefault((mode, query["kind"]), []).append(found)
            scores.setdefault((mode, "nDCG"), []).append(gain)
            if mode == "hybrid":
                scores.setdefault((half, query["kind"]), []).append(found)
                scores.setdefault((half, "nDCG"), []).append(gain)
    pairs = 0
    for packet_id, twin in TWIN.items():
        row = ids.index(packet_id)
        nearest = [ids[other] for other in np.argsort(-(matrix @ matrix[row]), kind="stable") if other != row]
        pairs += twin in nearest[:3]

    def figure(key):
        return f"{np.mean(scores[key]):.3f}"

    modes = "  ".join(
        f"{mode} {figure((mode, 'paraphrase'))} / {figure((mode, 'rare'))} / {figure((mode, 'nDCG'))}"
        for mode in ("hybrid", "semantic")
    )
    halves = "  ".join(f"{half} {figure((half, 'paraphrase'))} / {figure((half, 'nDCG'))}" for half in ("even", "odd"))
    return f"{modes}  pairs {pairs}/{len(TWIN)}  {halves}  {per_packet:.2f} ms"


if __name__ == "__main__":
    main()
