"""GET /v1/search against what people type (search syntax never breaks the query, the longest
queries answer), the index following every change, snippets, the selector itself and the index
the database keeps. Runs on the database of DATABASE_URL (SQLite's FTS5 or PostgreSQL's tsvector)."""

import pytest
from django.db import connection

from core.errors import NotFound
from core.testing import refusal
from packets.models import Packet
from packets.search import selectors
from packets.services import packet_delete, packet_move
from packets.testing import packet_v02, store_directly
from packets.testing import search as testing
from packets.testing.search import push

# These tests are about keyword search (mode=keyword): the full-text search hybrid mode fuses.


def search(api, q, **params):
    return testing.search(api, q, **{"mode": "keyword", **params})


def found(api, q, **params):
    return testing.found(api, q, **{"mode": "keyword", **params})


def search_packets(**arguments):
    return selectors.search_packets(**{"mode": "keyword", **arguments})


pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "q",
    [
        '"',
        '""',
        '"unclosed phrase',
        "*",
        "heron*",
        "NEAR(heron wren)",
        "NEAR(",
        "-",
        "--",
        "-heron",
        "OR",
        "heron OR",
        "OR OR OR",
        "^heron",
        "heron:",
        "goal:heron",
        "(heron",
        "heron)",
        "AND",
        "NOT heron",
        "heron NOT",
        "'",
        "\\",
        "%",
        "_",
        "{heron}",
        "+heron",
        "heron -",
        "!!",
        "&&",
        "||",
        "<->",
        ":*",
        "héron",
        "日本語",
        "\u200b",
        "a" * 1000,
        "the",
        "the and of",
        "#",
        "..",
        "e-mail",
        "email.md",
    ],
)
def test_search_syntax_from_the_user_never_breaks_the_query(api, q):
    push(api, goal="The heron and the wren share email.md via e-mail")
    response = search(api, q)
    assert response.status_code == 200, (q, response.content)
    assert isinstance(response.json()["results"], list)


def test_special_characters_still_find_the_words_around_them(api):
    pid = push(api, goal="The heron and the wren share email.md via e-mail")
    for q in ["heron*", "heron AND wren", "(heron", "^heron", "heron:", "email.md", "e-mail", "+heron"]:
        assert found(api, q) == [pid], q
    assert found(api, "-heron") == []  # nothing but exclusions finds nothing, not everything


def test_the_index_follows_push_repush_move_and_delete(api, alice, alpha):
    packet = packet_v02(goal="Teach the heron to fish")
    api.post("/v1/packets", packet)
    assert found(api, "heron") == [packet["id"]]
    packet["goal"] = "Teach the wren to sing"
    assert api.post("/v1/packets", packet).status_code == 201
    assert found(api, "heron") == [] and found(api, "wren") == [packet["id"]]
    packet_move(actor=alice, packet_id=packet["id"], team=alpha)
    assert found(api, "wren", team="alpha") == [packet["id"]]
    assert search(api, "wren").json()["results"][0]["team"] == "alpha"
    packet_delete(actor=alice, packet_id=packet["id"])
    assert found(api, "wren") == []


def test_deleting_a_team_takes_its_packets_out_of_search(api, alpha):
    push(api, team="alpha", goal="heron in alpha")
    alpha.delete()
    assert found(api, "heron") == []


def test_the_snippet_is_around_the_match(api):
    long_text = "word " * 100 + "the heron was here " + "word " * 100
    push(api, goal="Something else", next_step=long_text.strip())
    [result] = search(api, "heron").json()["results"]
    assert "heron" in result["snippet"]
    assert result["snippet"].startswith("…") and result["snippet"].endswith("…")
    assert len(result["snippet"]) <= 210


def test_the_selector_marks_the_matched_words(alice):
    store_directly(alice, packet_v02(id="01MARKED000000000001", goal="Tests of the heron", next_step="n"))
    [hit] = search_packets(viewer=alice, text="test heron")
    assert hit.goal == [("Tests", True), (" of the ", False), ("heron", True)]


def test_the_selector_refuses_a_team_of_others(alice, carol, alpha):
    assert refusal(NotFound, lambda: search_packets(viewer=carol, text="x", team_name="alpha")) == "team not found"


def test_the_database_keeps_the_index(alice):
    """The index lives in the database (a generated column, or FTS5 triggers), so rows written
    without the push service are found too, and a migration that rebuilds the packets table on
    SQLite (which drops its triggers) would fail here."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'packets_packet'")
            assert {row[0] for row in cursor.fetchall()} >= {
                "packets_search_insert",
                "packets_search_update",
                "packets_search_delete",
            }
    store_directly(alice, packet_v02(id="01DIRECT000000000001", goal="heron"))
    Packet.objects.filter(pk="01DIRECT000000000001").update(goal="wren")
    assert [h.packet.id for h in search_packets(viewer=alice, text="wren")] == ["01DIRECT000000000001"]
    assert search_packets(viewer=alice, text="heron") == []


def test_search_needs_a_bearer(anon_api):
    assert anon_api.get("/v1/search?q=heron").status_code == 401


@pytest.mark.parametrize(
    "q",
    [
        "x " * 499,  # as many words as 1,000 characters hold
        "x OR " * 199 + "x",  # as many alternatives
        "x -y " * 199,  # as many exclusions
        '"x" ' * 249,
    ],
)
def test_the_longest_queries_still_answer(api, q):
    push(api, goal="x marks the spot")
    response = search(api, q.strip())
    assert response.status_code == 200, response.content
