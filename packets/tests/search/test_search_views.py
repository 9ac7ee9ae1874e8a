"""The packets page's search: ranked full-text matches with marked words, scoped by the filters."""

import pytest

from core.testing import signed_in
from packets.testing import push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def core(alice, bob):
    return make_team(alice, "core", members=[bob])


def goals(response):
    return [packet.goal for packet in response.context["page"].object_list]


def test_search_ranks_every_field_and_marks_the_words(alice, core):
    push_packet(alice, goal="Unrelated", open_questions=["Why do the importers fail?"])
    push_packet(alice, team=core, goal="Fix the importer", next_step="Run it twice")
    response = signed_in(alice).get("/?q=importers")
    assert goals(response) == ["Fix the importer", "Unrelated"]
    body = response.content.decode()
    assert "Fix the <mark>importer</mark>" in body
    assert "Why do the <mark>importers</mark> fail?" in body
    assert "2 matching packets, best first" in body


def test_packet_text_is_escaped_around_the_marks(alice):
    push_packet(alice, goal='<script>alert("x")</script> importer <img src=x>')
    body = signed_in(alice).get("/?q=importer").content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; <mark>importer</mark> &lt;img src=x&gt;" in body
    assert "<script>alert" not in body


@pytest.mark.parametrize(
    "query, expected",
    [
        ("q=heron", ["heron core", "heron mine"]),
        ("q=heron&scope=personal", ["heron mine"]),
        ("q=heron&scope=team:core", ["heron core"]),
        ("q=heron&tag=db", ["heron core"]),
        ("q=heron&project=billing", ["heron mine"]),
        ("q=heron -core&mode=keyword", ["heron mine"]),
    ],
)
def test_search_with_the_filters(alice, bob, carol, core, query, expected):
    push_packet(alice, goal="heron mine", project={"name": "billing"}, created_at="2026-01-02T00:00:00Z")
    push_packet(bob, team=core, goal="heron core", tags=["db"], created_at="2026-01-01T00:00:00Z")
    push_packet(bob, goal="heron of bob")
    push_packet(carol, goal="heron of carol")
    assert sorted(goals(signed_in(alice).get("/?" + query.replace(" ", "+")))) == expected


def test_search_in_a_team_the_viewer_is_not_in_shows_nothing(alice, carol, core):
    push_packet(alice, team=core, goal="heron core")
    response = signed_in(carol).get("/?q=heron&scope=team:core")
    assert response.status_code == 200 and goals(response) == []
