"""packets.services called directly: pushing, deleting, moving and publishing with their rights,
and what deleting an account does to its team packets (accounts.services.user_delete)."""

from contextlib import contextmanager

import pytest

from accounts.models import User
from accounts.services import user_delete
from core.errors import Conflict, Forbidden, NotFound
from core.testing import refusal
from packets import services
from packets.models import Packet
from packets.publishing import services as publishing
from packets.testing import packet_v02, push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    """alice owns alpha; bob is a member."""
    return make_team(alice, "alpha", members=[bob])


# Push


def test_packet_push_stores_a_packet_and_a_re_push_replaces_it(alice, alpha):
    packet = packet_v02(goal="first", tags=["db", "retry"])
    stored = services.packet_push(actor=alice, packet=packet, team=alpha)
    assert (stored.owner, stored.team, stored.goal, stored.tags) == (alice, alpha, "first", " db retry ")
    assert Packet.objects.get().goal == "first"

    again = services.packet_push(actor=alice, packet={**packet, "goal": "second"}, team=alpha)
    assert again.pk == stored.pk
    assert Packet.objects.count() == 1
    assert Packet.objects.get().goal == "second"


def test_a_push_writes_its_packet_in_the_databases_writer_turn(alice, monkeypatch):
    """packets.sqlite_writers: on a SQLite file, concurrent pushes take turns on a lock rather than
    sleeping in SQLite's busy wait; the push's statement runs inside that turn."""
    turns = []

    @contextmanager
    def recorded_turn(connection):
        turns.append("taken")
        yield
        turns.append(Packet.objects.count())  # the packet was written inside the turn

    monkeypatch.setattr(services, "write_turn", recorded_turn)
    services.packet_push(actor=alice, packet=packet_v02())
    assert turns == ["taken", 1]


def test_a_re_push_keeps_the_public_page(alice):
    packet = push_packet(alice)
    published = publishing.packet_publish(actor=alice, packet_id=packet.pk)
    services.packet_push(actor=alice, packet=packet_v02(id=packet.pk, goal="reworded"))
    kept = Packet.objects.get(pk=packet.pk)
    assert (kept.goal, kept.public_slug, kept.published_at) == (
        "reworded",
        published.public_slug,
        published.published_at,
    )


def test_packet_push_refuses_someone_elses_id_without_telling_about_it(alice, bob):
    packet = push_packet(alice, goal="private")
    assert refusal(Conflict, lambda: services.packet_push(actor=bob, packet=packet_v02(id=packet.pk))) == (
        f"packet id {packet.pk} is already taken on this hub; give your packet a new id"
    )
    assert Packet.objects.get().goal == "private"


def test_packet_push_refuses_a_re_push_into_another_scope(alice, alpha):
    personal = packet_v02()
    services.packet_push(actor=alice, packet=personal)
    assert refusal(Conflict, lambda: services.packet_push(actor=alice, packet=personal, team=alpha)) == (
        f"packet {personal['id']} is one of your personal packets (ltm push without -t); push it there, "
        "or move it on the hub's packet page"
    )
    shared = push_packet(alice, team=alpha)
    assert refusal(Conflict, lambda: services.packet_push(actor=alice, packet=packet_v02(id=shared.pk))) == (
        f"packet {shared.pk} is in team alpha (ltm push -t alpha); push it there, or move it on the hub's packet page"
    )
    assert dict(Packet.objects.values_list("pk", "team")) == {personal["id"]: None, shared.pk: alpha.pk}


# Delete, publish, unpublish: the creator or the team's owner


def test_packet_delete_by_the_creator_or_the_team_owner(alice, bob, alpha):
    for actor in (bob, alice):
        packet = push_packet(bob, team=alpha)
        services.packet_delete(actor=actor, packet_id=packet.pk)
        assert not Packet.objects.filter(pk=packet.pk).exists()


def test_packet_delete_refuses_another_member_and_answers_a_stranger_as_unknown(alice, bob, carol, alpha):
    shared = push_packet(alice, team=alpha)
    assert refusal(Forbidden, lambda: services.packet_delete(actor=bob, packet_id=shared.pk)) == (
        "only the packet's creator or the team owner (or an admin) can do this"
    )
    personal = push_packet(alice)
    for actor, packet_id in [(carol, shared.pk), (bob, personal.pk), (alice, "01NOSUCHPACKET")]:
        assert refusal(NotFound, lambda: services.packet_delete(actor=actor, packet_id=packet_id)) == "packet not found"
    assert Packet.objects.count() == 2


def test_packet_publish_mints_one_slug_and_unpublish_forgets_it(alice):
    packet = push_packet(alice)
    published = publishing.packet_publish(actor=alice, packet_id=packet.pk)
    slug = published.public_slug
    assert len(slug) == 24 and published.published_at is not None
    assert publishing.packet_publish(actor=alice, packet_id=packet.pk).public_slug == slug

    publishing.packet_unpublish(actor=alice, packet_id=packet.pk)
    stored = Packet.objects.get(pk=packet.pk)
    assert (stored.public_slug, stored.published_at) == (None, None)
    assert publishing.packet_publish(actor=alice, packet_id=packet.pk).public_slug not in (None, slug)


def test_packet_publish_and_unpublish_need_the_change_right(alice, bob, carol, alpha):
    packet = push_packet(alice, team=alpha)
    for change in (publishing.packet_publish, publishing.packet_unpublish):
        assert refusal(Forbidden, lambda: change(actor=bob, packet_id=packet.pk)) == (
            "only the packet's creator or the team owner (or an admin) can do this"
        )
        assert refusal(NotFound, lambda: change(actor=carol, packet_id=packet.pk)) == "packet not found"
    assert Packet.objects.get(pk=packet.pk).public_slug is None
    assert publishing.packet_publish(actor=alice, packet_id=push_packet(bob, team=alpha).pk).public_slug


# Move: the creator only


def test_packet_move_between_personal_and_a_team_keeps_the_json(bob, alpha):
    packet = push_packet(bob)
    body = packet.body
    assert services.packet_move(actor=bob, packet_id=packet.pk, team=alpha).team == alpha
    assert services.packet_move(actor=bob, packet_id=packet.pk, team=None).team is None
    assert Packet.objects.get(pk=packet.pk).body == body


def test_packet_move_refuses_the_team_owner_and_a_team_the_creator_is_not_in(alice, bob, carol, alpha):
    shared = push_packet(bob, team=alpha)
    assert refusal(Forbidden, lambda: services.packet_move(actor=alice, packet_id=shared.pk, team=None)) == (
        "only the packet's creator can move it"
    )
    beta = make_team(carol, "beta")
    assert refusal(NotFound, lambda: services.packet_move(actor=bob, packet_id=shared.pk, team=beta)) == (
        "team not found"
    )
    assert Packet.objects.get(pk=shared.pk).team == alpha


# Deleting an account: its team packets stay with the team


def test_packets_hand_to_teams_gives_team_packets_to_each_teams_owner(alice, bob, carol, alpha):
    beta = make_team(carol, "beta", members=[bob])
    in_alpha, in_beta, personal = push_packet(bob, team=alpha), push_packet(bob, team=beta), push_packet(bob)
    assert services.packets_hand_to_teams(user=bob) == 2
    owners = dict(Packet.objects.values_list("pk", "owner__username"))
    assert owners == {in_alpha.pk: "alice", in_beta.pk: "carol", personal.pk: "bob"}


def test_user_delete_takes_personal_packets_and_hands_team_packets_over(alice, bob, alpha):
    shared, personal = push_packet(bob, team=alpha), push_packet(bob)
    user_delete(actor=bob)
    assert not Packet.objects.filter(pk=personal.pk).exists()
    stored = Packet.objects.get(pk=shared.pk)
    assert (stored.owner, stored.team) == (alice, alpha)


def test_user_delete_refused_for_a_team_owner_hands_nothing_over(alice, bob, alpha):
    make_team(bob, "beta")
    shared, personal = push_packet(bob, team=alpha), push_packet(bob)
    with pytest.raises(Conflict):
        user_delete(actor=bob)
    assert User.objects.filter(pk=bob.pk).exists()
    assert Packet.objects.get(pk=shared.pk).owner == bob
    assert Packet.objects.filter(pk=personal.pk).exists()
