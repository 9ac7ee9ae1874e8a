"""Reciprocal rank fusion of the keyword and the semantic rankings (docs/search.md#ranking).

Each packet scores the sum of 1 / (K + rank) over the rankings that found it (rank from 1), so a
packet both rankings found comes before one that only one found at the same place, and no score
of one ranking has to be made comparable with the other's. K = 60, as in the paper that named
the method (Cormack, Clarke and Büttcher, 2009); the score is then scaled to 0..1 by the best
possible, first in every ranking."""

from dataclasses import dataclass

K = 60


@dataclass(frozen=True)
class Fused:
    id: str
    score: float  # 0 to 1
    matched: tuple[str, ...]  # the names of the rankings that found it, in the order given


def fuse(rankings: dict[str, list[str]], *, limit: int) -> list[Fused]:
    """The ids of every ranking (each best first), fused, best first, at most `limit`. Ties keep
    the order in which they first appear in the rankings, taken in turn."""
    scores: dict[str, float] = {}
    matched: dict[str, list[str]] = {}
    for name, ids in rankings.items():
        for rank, packet_id in enumerate(ids, start=1):
            scores[packet_id] = scores.get(packet_id, 0.0) + 1 / (K + rank)
            matched.setdefault(packet_id, []).append(name)
    best = len(rankings) / (K + 1) if rankings else 1.0
    order = sorted(scores, key=lambda packet_id: -scores[packet_id])
    return [Fused(packet_id, scores[packet_id] / best, tuple(matched[packet_id])) for packet_id in order[:limit]]
