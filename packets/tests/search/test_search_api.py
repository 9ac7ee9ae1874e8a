"""GET /v1/search: what it finds, whose packets it may show, and bad input. Runs on the database
of DATABASE_URL (SQLite's FTS5 or PostgreSQL's tsvector)."""

import pytest

from packets.testing import packet_v02, store_directly
from packets.testing import search as testing
from packets.testing.search import push
from teams.testing import make_team

# These tests are about keyword search (mode=keyword): the full-text search hybrid mode fuses.


def search(api, q, **params):
    return testing.search(api, q, **{"mode": "keyword", **params})


def found(api, q, **params):
    return testing.found(api, q, **{"mode": "keyword", **params})


pytestmark = pytest.mark.django_db


def test_a_result_has_id_created_at_goal_team_snippet_score_and_shared_by(api, alpha):
    pid = push(api, team="alpha", goal="Stop the flaky test #107 on CI", next_step="Pin the clock in the fixture")
    [result] = search(api, "flaky test 107").json()["results"]
    assert set(result) == {"id", "created_at", "goal", "team", "snippet", "score", "shared_by", "matched"}
    assert result["matched"] == ["keyword"]
    assert result["shared_by"] is None  # nobody shared it with the caller
    assert result["id"] == pid and result["team"] == "alpha"
    assert result["goal"] == "Stop the flaky test #107 on CI"
    assert result["created_at"] == "2026-04-22T00:00:00Z"
    assert "flaky" in result["snippet"] and "<" not in result["snippet"]
    assert 0 <= result["score"] <= 1  # four decimals: a lone keyword match's rank may read 0.0


def test_a_personal_result_has_team_null(api):
    push(api, goal="Rotate the leaked password")
    assert search(api, "rotate password").json()["results"][0]["team"] is None


def test_words_in_any_order_and_case_with_stemming(api):
    pid = push(api, goal="Stop the flaky test #107 on CI")
    push(api, goal="Unrelated work on invoices")
    for q in ["flaky test 107", "test flaky", "TESTS Flaky", "testing flaky"]:
        assert found(api, q) == [pid], q


def test_every_text_field_is_searched(api):
    fields = {
        "success_criteria": ["zanzibar under 200 ms"],
        "constraints": ["never touch the quokka table"],
        "decisions": [{"what": "use the narwhal cache", "why": "the walrus was slow", "consequences": "no more okapi"}],
        "attempts": [{"tried": "the pelican path", "outcome": "failed", "learned": "the ibis lies"}],
        "methods": [{"name": "tapir-check", "when_applicable": "always", "how": "ask the lemur"}],
        "open_questions": ["what about the axolotl?"],
        "tags": ["wombat"],
        "project": {"name": "capybara"},
        "next_step": "feed the platypus",
    }
    pid = push(api, goal="An ordinary goal", **fields)
    push(api, goal="Another packet")
    for word in [
        "zanzibar",
        "quokka",
        "narwhal",
        "walrus",
        "okapi",
        "pelican",
        "ibis",
        "tapir",
        "lemur",
        "axolotl",
        "wombat",
        "capybara",
        "platypus",
        "ordinary",
    ]:
        assert found(api, word) == [pid], word


def test_quoted_phrases_exclusions_and_or(api):
    pool = push(api, goal="Connection pool exhausted under load")
    other = push(api, goal="The pool of connections is exhausted at night")
    assert found(api, '"connection pool exhausted"') == [pool]
    assert set(found(api, "connection pool exhausted")) == {pool, other}
    assert found(api, "exhausted -night") == [pool]
    assert set(found(api, "load OR night")) == {pool, other}


def test_goal_and_tags_weigh_more_than_the_rest(api):
    deep = push(api, goal="Some other goal", open_questions=["What about the heron?"])
    top = push(api, goal="Teach the heron to fish")
    assert found(api, "heron") == [top, deep]


def test_a_packet_id_or_its_start_puts_that_packet_first(api):
    target = push(api, id="01PREFIXTARGET0000000001", goal="An unrelated goal")
    push(api, id="01PREFIXOTHER00000000001", goal=f"Mentions {target} in passing")
    assert found(api, target)[0] == target
    assert found(api, target[:12])[0] == target
    assert search(api, target).json()["results"][0]["score"] == 1.0


def test_an_id_prefix_with_like_wildcards_is_matched_literally(api):
    target = push(api, goal="Target")
    assert found(api, target[:10].replace("T", "_")) == []


def test_without_team_everything_the_caller_may_read(api_as, api, alice, bob, carol, alpha):
    mine = push(api, goal="heron personal of alice")
    team = push(api_as(bob), team="alpha", goal="heron in team alpha")
    bobs = push(api_as(bob), goal="heron personal of bob")
    carols = push(api_as(carol), goal="heron personal of carol")
    make_team(carol, "beta")
    betas = push(api_as(carol), team="beta", goal="heron in team beta")
    assert set(found(api, "heron")) == {mine, team}
    assert set(found(api_as(bob), "heron")) == {team, bobs}
    assert set(found(api_as(carol), "heron")) == {carols, betas}
    # A pasted id of someone else's packet finds nothing either.
    assert found(api, bobs) == [] and carols not in found(api, carols[:12])


def test_with_team_only_that_team(api_as, api, alpha):
    push(api, goal="heron personal")
    team = push(api, team="alpha", goal="heron in alpha")
    assert found(api, "heron", team="alpha") == [team]
    assert found(api_as(alpha.memberships.get(role="member").user), "heron", team="alpha") == [team]


def test_a_team_of_others_or_none_is_404(api_as, api, carol, alpha):
    push(api, team="alpha", goal="heron in alpha")
    for who, team in [(api_as(carol), "alpha"), (api, "nosuchteam")]:
        response = search(who, "heron", team=team)
        assert response.status_code == 404
        assert response.json() == {"error": "team not found"}
    # A member's team with no match is an empty list, not a 404.
    assert search(api, "zebra", team="alpha").json() == {"results": []}


def test_limit_default_20_and_at_most_100(api, alice):
    for n in range(25):
        store_directly(alice, packet_v02(id=f"01LIMIT{n:019d}", goal=f"heron number {n}"))
    assert len(found(api, "heron")) == 20
    assert len(found(api, "heron", limit=3)) == 3
    assert len(found(api, "heron", limit=100)) == 25


@pytest.mark.parametrize("limit", ["0", "-1", "101", "abc", "1.5", "", " 5", "99999999999999999999"])
def test_a_bad_limit_is_400(api, limit):
    response = search(api, "heron", limit=limit)
    assert response.status_code == 400
    assert "limit must be a whole number from 1 to 100" in response.json()["error"]


@pytest.mark.parametrize("limit", ["1_0", "\u0663", "\uff15", "5.0", "1e1", "5\n", "+"])
def test_a_limit_that_is_not_a_plain_number_is_400(api, limit):
    response = search(api, "heron", limit=limit)
    assert response.status_code == 400
    assert "limit must be a whole number from 1 to 100" in response.json()["error"]


def test_a_limit_is_read_as_go_reads_a_number(api, alice):
    for n in range(5):
        store_directly(alice, packet_v02(id=f"01SIGNED{n:018d}", goal=f"heron number {n}"))
    assert len(found(api, "heron", limit="+3")) == 3
    assert len(found(api, "heron", limit="0004")) == 4


def test_every_bad_parameter_is_named_in_one_message(api):
    response = search(api, " ", limit="x")
    assert response.status_code == 400
    assert response.json() == {
        "error": "q is required: the words to search for; limit must be a whole number from 1 to 100; got 'x'"
    }


@pytest.mark.parametrize("path", ["/v1/search", "/v1/search?q=", "/v1/search?q=%20%20", "/v1/search?team=alpha"])
def test_a_blank_or_missing_q_is_400(api, path):
    response = api.get(path)
    assert response.status_code == 400
    assert response.json() == {"error": "q is required: the words to search for"}


def test_a_huge_q_is_400_and_a_nul_is_400(api):
    response = search(api, "heron " * 200)
    assert response.status_code == 400 and "maximum is 1000" in response.json()["error"]
    assert search(api, "he\x00ron").status_code == 400
