"""Recall by meaning on the wire: GET /v1/search's modes and GET /v1/packets/{id}/related, whose
packets they may show, and bad input. Runs on the database of DATABASE_URL."""

import pytest
from django.test import override_settings

from packets.testing import packet_v02
from packets.testing.search import found, push, search
from teams.testing import make_team

pytestmark = pytest.mark.django_db

XDIST = "Stop pytest-xdist workers from deadlocking on the shared SQLite file"
OTHERS = [
    "Invoice totals off by a cent because prices are summed as floats",
    "Photos uploaded from phones appear sideways; apply the EXIF orientation",
    "Terraform apply stuck on a stale DynamoDB state lock",
]


def related(api, packet_id, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return api.get(f"/v1/packets/{packet_id}/related" + (f"?{query}" if query else ""))


def related_ids(api, packet_id, **params):
    response = related(api, packet_id, **params)
    assert response.status_code == 200, response.content
    return [result["id"] for result in response.json()["results"]]


@pytest.fixture
def corpus(api):
    target = push(api, goal=XDIST, next_step="Give each worker its own database file", tags=["pytest", "sqlite"])
    return target, [push(api, goal=goal, next_step="Write it down") for goal in OTHERS]


def test_hybrid_is_the_default_and_finds_by_meaning_what_shares_no_word(api, corpus):
    target, _ = corpus
    query = "tests hang when the suite runs concurrently"
    assert found(api, query, mode="keyword") == []
    assert found(api, query)[0] == target
    [result] = [r for r in search(api, query).json()["results"] if r["id"] == target]
    assert result["matched"] == ["semantic"] and 0 < result["score"] <= 1


def test_each_result_says_how_it_matched(api, corpus):
    target, others = corpus
    results = {r["id"]: r["matched"] for r in search(api, "pytest-xdist workers deadlocking").json()["results"]}
    assert results[target] == ["keyword", "semantic"]
    assert all(results[other] == ["semantic"] for other in others if other in results)
    assert all(r["matched"] == ["keyword"] for r in search(api, "deadlocking", mode="keyword").json()["results"])


def test_semantic_mode_ranks_every_readable_packet_by_meaning(api, corpus):
    target, others = corpus
    assert set(found(api, "a database file shared by concurrent test processes", mode="semantic")) == {target, *others}
    assert found(api, "a database file shared by concurrent test processes", mode="semantic")[0] == target


def test_any_other_mode_is_a_400_naming_the_three(api):
    for mode in ("fuzzy", "HYBRID", ""):
        response = search(api, "heron", mode=mode)
        assert response.status_code == 400, mode
        assert "mode must be one of hybrid, keyword, semantic" in response.json()["error"]


def test_related_is_nearest_in_meaning_itself_left_out(api):
    twin = push(api, goal="Concurrently running pytest processes freeze while both write one db file", next_step="x")
    target = push(api, goal=XDIST, next_step="Give each worker its own database file")
    for goal in OTHERS:
        push(api, goal=goal, next_step="Write it down")
    ids = related_ids(api, target)
    assert target not in ids and ids[0] == twin and len(ids) == 4
    assert related_ids(api, target, limit=1) == [twin]
    [result] = related(api, target, limit=1).json()["results"]
    assert set(result) == {"id", "created_at", "goal", "team", "snippet", "score", "shared_by", "matched"}
    assert result["matched"] == ["semantic"]


def test_related_defaults_to_five_and_takes_at_most_fifty(api):
    target = push(api, goal=XDIST, next_step="x")
    for number in range(7):
        push(api, goal=f"{OTHERS[number % 3]} ({number})", next_step="x")
    assert len(related_ids(api, target)) == 5
    assert len(related_ids(api, target, limit=50)) == 7
    for limit in ("0", "51", "10000", "-1", "five", ""):
        response = related(api, target, limit=limit)
        assert response.status_code == 400, limit
        assert "limit must be a whole number from 1 to 50" in response.json()["error"]


def test_related_shows_only_what_the_caller_may_read(api, api_as, alice, bob, carol):
    team = make_team(alice, "alpha", members=[bob])
    mine = push(api, goal=XDIST, next_step="x")
    in_team = push(api, team="alpha", goal="pytest-xdist workers block on one SQLite file", next_step="x")
    carols = push(api_as(carol), goal="pytest-xdist workers deadlock on SQLite", next_step="x")
    assert related_ids(api, mine) == [in_team]
    assert carols not in related_ids(api_as(carol), carols) and related_ids(api_as(carol), carols) == []
    assert related_ids(api_as(bob), in_team) == []  # alice's personal packet is not bob's to read
    # Another account's packet answers as one that does not exist.
    for who, packet_id in (
        (api_as(bob), mine),
        (api_as(carol), in_team),
        (api, carols),
        (api, "01NOSUCHPACKET0000000"),
    ):
        response = related(who, packet_id)
        assert (response.status_code, response.json()) == (404, {"error": "packet not found"}), packet_id
    assert team.name == "alpha"


def test_a_share_withdrawn_or_a_team_left_is_out_of_results_at_once(api, api_as, alice, bob, carol):
    make_team(alice, "alpha", members=[bob])
    query = "database file shared by concurrent test processes"
    in_team = push(api, team="alpha", goal=XDIST, next_step="x")
    shared = push(api, goal="pytest-xdist workers deadlock on the shared db", next_step="x")
    share = api.post(f"/v1/packets/{shared}/shares", {"to": "carol"}).json()["share"]
    assert shared in found(api_as(carol), query, mode="semantic")
    assert api.delete(f"/v1/shares/{share['id']}").status_code == 204
    assert shared not in found(api_as(carol), query, mode="semantic")
    assert in_team in found(api_as(bob), query, mode="semantic")
    assert api_as(bob).post("/v1/teams/alpha/leave", {}).status_code == 204
    assert found(api_as(bob), query, mode="semantic") == []


def test_a_delete_is_out_of_results_at_once_and_a_repush_is_embedded_again(api):
    target = push(api, goal=XDIST, next_step="x")
    other = push(api, goal=OTHERS[0], next_step="x")
    assert found(api, "cents lost when adding up prices", mode="semantic")[0] == other
    # The same id pushed again about something else: found by its new meaning.
    repushed = packet_v02(id=target, goal="Rounding errors add up in invoice sums of prices", next_step="x")
    assert api.post("/v1/packets", repushed).status_code == 201
    assert set(found(api, "cents lost when adding up prices", mode="semantic")[:2]) == {target, other}
    assert api.delete(f"/v1/packets/{other}").status_code == 204
    assert found(api, "cents lost when adding up prices", mode="semantic") == [target]


@override_settings(LTM_SEMANTIC="off")
def test_with_ltm_semantic_off_search_is_keyword_and_related_names_the_setting(api):
    target = push(api, goal=XDIST, next_step="x")
    assert found(api, "tests hang when the suite runs concurrently") == []
    assert found(api, "tests hang when the suite runs concurrently", mode="semantic") == []
    assert all("matched" not in r or r["matched"] == ["keyword"] for r in search(api, "xdist").json()["results"])
    response = related(api, target)
    assert response.status_code == 400
    assert "LTM_SEMANTIC=off" in response.json()["error"]


@pytest.mark.parametrize(
    "q",
    ["", "%20%20", "word%20" * 2000, "nul%00byte"],
    ids=["empty", "blank", "2000 words", "NUL"],
)
def test_bad_queries_are_a_400_with_a_message_in_every_mode(api, q):
    push(api, goal=XDIST, next_step="x")
    for mode in ("hybrid", "keyword", "semantic"):
        response = api.get(f"/v1/search?q={q}&mode={mode}")
        assert response.status_code == 400, (mode, response.content)
        assert response.json()["error"], mode


def test_a_lone_surrogate_in_the_query_string_is_read_as_a_replacement_character(api):
    """Django decodes a query string's invalid UTF-8 (a lone surrogate's bytes) as U+FFFD: a query
    like any other, in every mode."""
    target = push(api, goal=XDIST, next_step="x")
    for mode in ("hybrid", "keyword", "semantic"):
        response = api.get(f"/v1/search?q=xdist%20%ED%A0%80&mode={mode}")
        assert response.status_code == 200, (mode, response.content)
    assert [r["id"] for r in response.json()["results"]] == [target]


def test_odd_ids_for_related_are_a_404_never_a_500(api):
    for packet_id in ("x", "%00", "a" * 300, "%ED%A0%80"):
        response = api.get(f"/v1/packets/{packet_id}/related")
        assert response.status_code in (400, 404), (packet_id, response.content)
