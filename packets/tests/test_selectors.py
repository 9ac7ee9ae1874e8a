"""packets.selectors called directly: every read is scoped by the viewer, and a public page's
chain only links packets of the same creator or team."""

import pytest

from core.errors import NotFound
from core.timestamps import rfc3339
from packets import selectors
from packets.export import selectors as export_selectors
from packets.models import CHANGE, CLEAR, READ, Packet, team_readable_sql
from packets.publishing import selectors as publishing_selectors
from packets.publishing import services as publishing
from packets.search.selectors import search_packets
from packets.testing import push_packet
from teams.models import Membership
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    """alice owns alpha; bob is a member."""
    return make_team(alice, "alpha", members=[bob])


def ids(packets):
    return sorted(packet.pk for packet in packets)


def test_visible_to_is_ones_personal_packets_and_those_of_ones_teams(alice, bob, carol, alpha):
    shared, bobs = push_packet(alice, team=alpha), push_packet(bob)
    carols = push_packet(carol)
    assert ids(Packet.objects.visible_to(bob)) == sorted([shared.pk, bobs.pk])
    assert ids(Packet.objects.visible_to(carol)) == [carols.pk]


def test_packet_list_is_personal_or_the_teams_newest_first_up_to_the_limit(alice, bob, alpha):
    old = push_packet(bob, created_at="2026-01-01T00:00:00Z")
    new = push_packet(bob, created_at="2026-02-01T00:00:00Z")
    shared = push_packet(bob, team=alpha)

    def listed(**kwargs):
        return [(packet.id, packet.created_at, packet.goal) for packet in selectors.packet_list(**kwargs)]

    def line(packet):
        return (packet.id, rfc3339(packet.created_at), packet.goal)

    assert listed(viewer=bob) == [line(new), line(old)]
    assert listed(viewer=bob, limit=1) == [line(new)]
    assert listed(viewer=alice, team_name=alpha.name) == [line(shared)]


def test_packet_get_answers_a_packet_of_others_as_unknown(alice, bob, carol, alpha):
    shared, personal = push_packet(bob, team=alpha), push_packet(bob)
    assert selectors.packet_get(viewer=alice, packet_id=shared.pk) == shared
    for viewer, packet_id in [(carol, shared.pk), (alice, personal.pk), (bob, "01NOSUCHPACKET")]:
        with pytest.raises(NotFound) as refused:
            selectors.packet_get(viewer=viewer, packet_id=packet_id)
        assert refused.value.message == "packet not found"


def test_packet_search_narrows_what_the_viewer_may_see(alice, bob, carol, alpha):
    shared = push_packet(alice, team=alpha, goal="Fix the Importer", tags=["db"])
    personal = push_packet(bob, next_step="run the importer", project={"name": "hub"})
    push_packet(carol, goal="importer of carol")
    search = lambda **filters: ids(selectors.packet_search(viewer=bob, **filters))  # noqa: E731
    assert search() == sorted([shared.pk, personal.pk])
    assert sorted(hit.packet.pk for hit in search_packets(viewer=bob, text=" IMPORTER ")) == sorted(
        [shared.pk, personal.pk]
    )
    assert search(personal=True) == [personal.pk]
    assert search(team_name="alpha") == [shared.pk]
    assert search(team_name="beta") == []
    assert search(tag="db") == [shared.pk] and search(tag="d") == []
    assert search(project="hub") == [personal.pk]


def test_packet_get_published_needs_a_live_slug(alice):
    packet = publishing.packet_publish(actor=alice, packet_id=push_packet(alice).pk)
    assert publishing_selectors.packet_get_published(slug=packet.public_slug) == packet
    publishing.packet_unpublish(actor=alice, packet_id=packet.pk)
    for slug in (packet.public_slug, "", None):
        with pytest.raises(NotFound) as refused:
            publishing_selectors.packet_get_published(slug=slug)
        assert refused.value.message == "this link is no longer valid"


def test_a_published_chain_links_only_the_same_creators_or_teams_packets(alice, bob, alpha):
    def published(owner, **fields):
        return publishing.packet_publish(actor=owner, packet_id=push_packet(owner, **fields).pk)

    parent = published(alice, team=alpha)
    child = published(bob, team=alpha, parent_id=parent.pk)
    strangers_child = published(bob, parent_id=parent.pk)  # bob's personal packet naming alice's
    push_packet(alice, parent_id=parent.pk)  # not published
    assert publishing_selectors.packet_published_parent(packet=child) == parent
    assert publishing_selectors.packet_published_parent(packet=strangers_child) is None
    assert publishing_selectors.packet_published_children(packet=parent) == [child]
    assert publishing_selectors.packet_published_parent(packet=parent) is None


def test_packet_viewer_rights(alice, bob, carol, alpha):
    shared = push_packet(bob, team=alpha)
    rights = lambda viewer: selectors.packet_viewer_rights(viewer=viewer, packet=shared)  # noqa: E731
    assert rights(bob) == {"change": True, "move": True, "share": False, "clear_findings": True}
    assert rights(alice) == {"change": True, "move": False, "share": False, "clear_findings": True}
    assert rights(carol) == {"change": False, "move": False, "share": False, "clear_findings": False}
    alpha.share_outside = True
    alpha.save()
    assert rights(alice)["share"] and rights(bob)["share"] and not rights(carol)["share"]
    personal = push_packet(carol)
    assert selectors.packet_viewer_rights(viewer=carol, packet=personal)["share"]


def test_packet_visible_chain_shows_only_what_the_viewer_may_see(alice, bob, carol, alpha):
    parent = push_packet(alice, team=alpha)
    packet = push_packet(bob, team=alpha, parent_id=parent.pk)
    child = push_packet(bob, team=alpha, parent_id=packet.pk)
    carols = push_packet(carol, parent_id=packet.pk)
    assert selectors.packet_visible_chain(viewer=bob, packet=packet) == (parent, [child])
    assert selectors.packet_visible_chain(viewer=carol, packet=packet) == (None, [carols])


def test_an_export_of_a_team_holds_only_what_the_viewer_may_read_of_it(alice, bob, carol, alpha):
    """The selector applies READ itself, whatever its caller checked: a team the viewer is not in
    gives nothing."""
    packet = push_packet(bob, team=alpha)
    for viewer, expected in ((bob, [packet.pk]), (carol, [])):
        rows = export_selectors.packets_for_export(viewer=viewer, team=alpha)
        try:
            assert [row.id for row in rows] == expected
        finally:
            rows.close()
        assert export_selectors.packet_export_count(viewer=viewer, team=alpha) == len(expected)


def test_the_rights_sql_carries_the_roles_as_parameters_never_as_text(alice):
    for right in (READ, CHANGE, CLEAR):
        sql, params = right.sql("p", alice)
        assert "'" not in sql and sql.count("%s") == len(params)
    sql, params = CHANGE.sql("p", alice)
    assert set(Membership.MANAGERS) <= set(params)
    sql, params = team_readable_sql("p", alice, "alpha")
    assert "'" not in sql and sql.count("%s") == len(params)
