"""Recall by meaning on the dashboard: the packets page searches in hybrid mode with a switch of
mode and says how each result matched; a packet's page has a Related panel."""

import pytest
from django.test import override_settings

from core.testing import signed_in
from packets.testing import push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db

XDIST = "Stop pytest-xdist workers from deadlocking on the shared SQLite file"
QUERY = "tests+hang+when+the+suite+runs+concurrently"


def goals(response):
    return [packet.goal for packet in response.context["page"].object_list]


@pytest.fixture
def packets(alice):
    target = push_packet(alice, goal=XDIST, next_step="One database file per worker")
    other = push_packet(alice, goal="Invoice totals off by a cent because prices are summed as floats")
    return target, other


def test_the_search_is_hybrid_unless_switched_and_says_how_each_matched(alice, packets):
    response = signed_in(alice).get(f"/?q={QUERY}")
    assert goals(response)[0] == XDIST
    body = response.content.decode()
    assert "matched by meaning" in body
    assert '<option value="" selected>Words and meaning</option>' in body
    assert goals(signed_in(alice).get(f"/?q={QUERY}&mode=keyword")) == []
    both = signed_in(alice).get("/?q=xdist+workers").content.decode()
    assert "matched by words and meaning" in both
    assert goals(signed_in(alice).get("/?q=xdist&mode=semantic"))[0] == XDIST


def test_a_mode_that_is_not_one_is_shown_as_an_error(alice, packets):
    response = signed_in(alice).get(f"/?q={QUERY}&mode=fuzzy")
    assert "Select a valid choice" in response.content.decode()


def test_the_packet_page_lists_the_related_packets_it_may_read(alice, bob, carol):
    core = make_team(alice, "core", members=[bob])
    target = push_packet(alice, goal=XDIST)
    twin = push_packet(alice, team=core, goal="Concurrently running pytest processes freeze on one db file")
    carols = push_packet(carol, goal="pytest-xdist workers deadlock on a shared SQLite file")
    body = signed_in(alice).get(f"/packets/{target.id}").content.decode()
    related = body[body.index('id="related"') :]
    assert f'href="/packets/{twin.id}"' in related and "team core" in related
    assert carols.id not in body and f'href="/packets/{target.id}"' not in related
    lonely = signed_in(carol).get(f"/packets/{carols.id}").content.decode()
    assert "No other packet you may read is related to this one yet." in lonely


@override_settings(LTM_SEMANTIC="off")
def test_with_ltm_semantic_off_there_is_no_related_panel_and_search_is_by_words(alice, packets):
    target, _ = packets
    assert 'id="related"' not in signed_in(alice).get(f"/packets/{target.id}").content.decode()
    assert goals(signed_in(alice).get(f"/?q={QUERY}")) == []
