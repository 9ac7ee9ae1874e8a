"""Reciprocal rank fusion (packets.search.fusion)."""

from packets.search.fusion import K, fuse


def test_a_packet_both_rankings_found_comes_before_one_found_by_one_alone():
    fused = fuse({"keyword": ["a", "b"], "semantic": ["c", "b"]}, limit=10)
    assert [f.id for f in fused] == ["b", "a", "c"]
    assert fused[0].matched == ("keyword", "semantic")
    assert fused[1].matched == ("keyword",) and fused[2].matched == ("semantic",)


def test_scores_are_scaled_to_one_for_first_in_every_ranking():
    fused = fuse({"keyword": ["a"], "semantic": ["a"]}, limit=10)
    assert fused[0].score == 1.0
    alone = fuse({"keyword": ["a"], "semantic": []}, limit=10)
    assert alone[0].score == 0.5
    assert fuse({"keyword": ["x", "y"]}, limit=10)[1].score == (1 / (K + 2)) / (1 / (K + 1))


def test_the_limit_and_the_order_of_ties():
    fused = fuse({"keyword": ["a", "b"], "semantic": ["b2", "a2"]}, limit=3)
    # a and b2 tie (first in one ranking each), so do b and a2: the keyword ranking's come first.
    assert [f.id for f in fused] == ["a", "b2", "b"]


def test_nothing_found_fuses_to_nothing():
    assert fuse({"keyword": [], "semantic": []}, limit=5) == []
