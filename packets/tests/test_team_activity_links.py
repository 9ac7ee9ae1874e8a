"""A team's activity lines link the packets they name (the team's page and its activity page):
while the viewer can still read the packet, with one query for the whole page. Here rather than in
teams/tests: the tests push packets, and teams may not import packets (.importlinter)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.testing import signed_in
from packets.selectors import packet_ids_readable
from packets.services import packet_delete, packet_move
from packets.testing import push_packet
from teams.signals import packets_readable
from teams.testing import make_team


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member."""
    return make_team(alice, "core", members=[bob])


def test_activity_lines_link_the_packets_the_viewer_can_still_read(alice, bob, team):
    kept = push_packet(bob, team=team, goal="Ship the importer")
    gone = push_packet(bob, team=team, goal="A dead end")
    packet_delete(actor=bob, packet_id=gone.pk)
    mine = push_packet(bob, team=team, goal="Back to bob alone")
    packet_move(actor=bob, packet_id=mine.pk, team=None)  # alice can no longer read it; bob can
    for path in ("/teams/core", "/teams/core/activity"):
        page = signed_in(alice).get(path).content.decode()
        assert f'pushed <a href="/packets/{kept.pk}">packet {kept.pk}</a> (Ship the importer)' in page, path
        assert f"deleted packet {gone.pk} (A dead end)" in page and f'href="/packets/{gone.pk}"' not in page
        assert f"moved packet {mine.pk} (Back to bob alone) out of the team" in page
        assert f'href="/packets/{mine.pk}"' not in page
    bobs = signed_in(bob).get("/teams/core/activity").content.decode()
    assert f'moved <a href="/packets/{mine.pk}">packet {mine.pk}</a> (Back to bob alone) out of the team' in bobs


@pytest.mark.parametrize("path", ["/teams/core", "/teams/core/activity"])
def test_linking_the_packets_costs_the_same_queries_whatever_the_number_of_lines(alice, bob, team, path):
    client = signed_in(alice)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        return len(captured)

    push_packet(bob, team=team)
    one_line = queries()
    for _ in range(12):
        packet_delete(actor=bob, packet_id=push_packet(bob, team=team).pk)
    assert queries() == one_line


def test_the_team_pages_ask_the_packets_app_through_the_teams_signal(alice, bob, team):
    """teams sits below packets: its pages learn what the viewer may read from the receivers of
    teams.signals.packets_readable, and link nothing when no app answers."""
    kept = push_packet(bob, team=team, goal="Ship the importer")
    assert packets_readable.disconnect(dispatch_uid="packets-readable")
    try:
        page = signed_in(alice).get("/teams/core").content.decode()
    finally:
        packets_readable.connect(packet_ids_readable, dispatch_uid="packets-readable")
    assert f"pushed packet {kept.pk} (Ship the importer)" in page and f'href="/packets/{kept.pk}"' not in page
