"""Recall by meaning on /mcp: `search` takes a mode, and `recall` briefs an agent on the packets
most related to its task (their goal, what did not work and what it taught, locked decisions)."""

import json

import pytest

from mcp_remote.testing import call
from packets.services import packet_push
from packets.testing import packet_v02
from teams.testing import make_team

XDIST = packet_v02(
    goal="Stop pytest-xdist workers from deadlocking on the shared SQLite file",
    next_step="Name the database file after PYTEST_XDIST_WORKER",
    decisions=[
        {"what": "Give each xdist worker its own database file", "why": "SQLite locks the whole file", "locked": True},
        {"what": "Maybe move the suite to PostgreSQL", "why": "closer to production", "locked": False},
    ],
    attempts=[
        {"tried": "Raised the busy timeout to 30 s", "outcome": "failed", "learned": "A fixture holds its transaction"},
        {"tried": "Ran with -n 1", "outcome": "succeeded", "learned": "Serial runs never freeze"},
    ],
)
OTHER = packet_v02(goal="Invoice totals off by a cent because prices are summed as floats", next_step="Use Decimal")


@pytest.fixture
def token(alice, make_token):
    packet_push(actor=alice, packet=XDIST)
    packet_push(actor=alice, packet=OTHER)
    return make_token(alice)


def test_search_takes_a_mode_and_says_how_each_result_matched(token):
    query = "tests hang when the suite runs concurrently"
    text, is_error = call(token, "search", {"q": query, "mode": "keyword"})
    assert not is_error and json.loads(text) == []
    results = json.loads(call(token, "search", {"q": query})[0])
    assert results[0]["id"] == XDIST["id"] and results[0]["matched"] == ["semantic"]
    text, is_error = call(token, "search", {"q": query, "mode": "fuzzy"})
    assert is_error and "hybrid" in text and "keyword" in text and "semantic" in text


def test_recall_briefs_on_the_most_related_packets(token):
    text, is_error = call(token, "recall", {"text": "tests hang when the suite runs concurrently", "limit": 1})
    assert not is_error, text
    assert text.startswith("# Recall: tests hang when the suite runs concurrently")
    assert f"## 1. {XDIST['goal']}" in text and OTHER["goal"] not in text
    assert "- Raised the busy timeout to 30 s (failed): A fixture holds its transaction" in text
    assert "Serial runs never freeze" not in text  # it worked: not a lesson of what failed
    assert "- Give each xdist worker its own database file (why: SQLite locks the whole file)" in text
    assert "Maybe move the suite to PostgreSQL" not in text  # not locked
    assert "found by its meaning" in text


def test_recall_only_reads_what_the_caller_may_read(alice, bob, carol, make_token):
    make_team(alice, "alpha", members=[bob])
    packet_push(actor=alice, packet=XDIST, team=alice.memberships.get().team)
    text, is_error = call(make_token(carol), "recall", {"text": "tests hang when the suite runs concurrently"})
    assert not is_error and "No earlier packet you may read is related to this task" in text
    text, is_error = call(make_token(bob), "recall", {"text": "tests hang when the suite runs concurrently"})
    assert not is_error and XDIST["goal"] in text and "team alpha" in text
    text, is_error = call(make_token(bob), "recall", {"text": "x", "team": "nosuch"})
    assert is_error and "team not found" in text


def test_recall_needs_the_task(token):
    for arguments in ({}, {"text": ""}, {"text": "x" * 1001}, {"text": "x", "limit": 11}):
        text, is_error = call(token, "recall", arguments)
        assert is_error, arguments
