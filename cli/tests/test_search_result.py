"""A search result's score, as /v1/search and both `search` tools give it: rounded to four
decimals, so an agent reads 0.6123 rather than a rank function's float noise."""

import json

from ltm.protocol.tool_calls import search_result

FIELDS = {"id": "01J8ZK0000000000000000000A", "created_at": "2026-04-22T00:00:00Z", "goal": "g", "team": None}


def test_the_score_is_rounded_to_four_decimals():
    assert search_result(**FIELDS, snippet="", score=0.612345678901)["score"] == 0.6123
    assert search_result(**FIELDS, snippet="", score=1.0)["score"] == 1.0


def test_a_vanishing_score_reads_as_zero_not_as_an_exponent():
    result = search_result(**FIELDS, snippet="", score=1.999996000008e-06)
    assert result["score"] == 0.0
    assert "e-06" not in json.dumps(result)
