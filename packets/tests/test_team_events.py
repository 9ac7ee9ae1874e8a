"""What packets write in their team's activity log: pushed, re-pushed, deleted, published,
unpublished, moved in and out, each with who did it, and kept after the packet and the person are
gone. Personal packets write nothing. Every line comes from teams.events, the log's one writer, in
the change's own transaction (test_team_events_transaction.py), the same way on either database."""

import pytest
from django.db import connection

from accounts.services import user_delete
from packets import services
from packets.models import Packet
from packets.testing import packet_v02
from teams.events import GOAL_CHARS, packet_detail
from teams.models import Membership, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


@pytest.fixture
def beta(bob):
    return make_team(bob, "beta")


def log(team):
    return [
        (e.kind, e.actor_name, e.detail.get("packet_id"))
        for e in TeamEvent.objects.filter(team=team).order_by("id")
        if e.kind.startswith("packet.")
    ]


def test_push_and_re_push_into_a_team_are_logged_and_a_refused_push_is_not(api_as, bob, carol, alpha):
    bob.display = "Bob Stone"
    bob.save()
    packet = packet_v02(goal="Ship the importer")
    assert api_as(bob).post("/v1/packets?team=alpha", packet).status_code == 201
    assert api_as(bob).post("/v1/packets?team=alpha", dict(packet, goal="Ship it, v2")).status_code == 201
    Membership.objects.create(team=alpha, user=carol)
    assert api_as(carol).post("/v1/packets?team=alpha", packet).status_code == 409  # not carol's
    assert log(alpha) == [("packet.pushed", "Bob Stone", packet["id"]), ("packet.repushed", "Bob Stone", packet["id"])]
    pushed, repushed = TeamEvent.objects.filter(team=alpha).order_by("id")
    assert (pushed.actor, pushed.detail["goal"], repushed.detail["goal"]) == (bob, "Ship the importer", "Ship it, v2")


def test_personal_packets_write_nothing(api_as, alice, alpha):
    packet = packet_v02()
    api = api_as(alice)
    api.post("/v1/packets", packet)
    api.post("/v1/packets", packet)
    api.post(f"/v1/packets/{packet['id']}/publish")
    api.delete(f"/v1/packets/{packet['id']}/publish")
    api.delete(f"/v1/packets/{packet['id']}")
    assert not TeamEvent.objects.exists()


def test_publish_unpublish_and_delete_by_an_admin_are_logged_with_the_admin(api_as, alice, bob, carol, alpha):
    Membership.objects.create(team=alpha, user=carol, role=Membership.ADMIN)
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=alpha", packet)
    admin = api_as(carol)
    assert admin.post(f"/v1/packets/{packet['id']}/publish").status_code == 200
    assert admin.post(f"/v1/packets/{packet['id']}/publish").status_code == 200  # already published: no new line
    assert admin.delete(f"/v1/packets/{packet['id']}/publish").status_code == 204
    assert admin.delete(f"/v1/packets/{packet['id']}/publish").status_code == 204  # nothing to take down
    assert admin.delete(f"/v1/packets/{packet['id']}").status_code == 204
    assert log(alpha) == [
        ("packet.pushed", "bob", packet["id"]),
        ("packet.published", "carol", packet["id"]),
        ("packet.unpublished", "carol", packet["id"]),
        ("packet.deleted", "carol", packet["id"]),
    ]


def test_refused_changes_write_nothing(api_as, bob, carol, alpha):
    Membership.objects.create(team=alpha, user=carol)
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=alpha", packet)
    member = api_as(carol)
    assert member.post(f"/v1/packets/{packet['id']}/publish").status_code == 403
    assert member.delete(f"/v1/packets/{packet['id']}/publish").status_code == 403
    assert member.delete(f"/v1/packets/{packet['id']}").status_code == 403
    assert [kind for kind, *_ in log(alpha)] == ["packet.pushed"]


def test_moves_are_logged_in_both_teams(bob, alpha, beta):
    packet = Packet.objects.get(pk=services.packet_push(actor=bob, packet=packet_v02(), team=None).pk)
    services.packet_move(actor=bob, packet_id=packet.pk, team=alpha)
    services.packet_move(actor=bob, packet_id=packet.pk, team=beta)
    services.packet_move(actor=bob, packet_id=packet.pk, team=None)
    assert log(alpha) == [("packet.moved_in", "bob", packet.pk), ("packet.moved_out", "bob", packet.pk)]
    assert log(beta) == [("packet.moved_in", "bob", packet.pk), ("packet.moved_out", "bob", packet.pk)]


def test_the_log_outlives_the_packet_and_the_person(api_as, alice, bob, alpha):
    bob.display = "Bob Stone"
    bob.save()
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=alpha", packet)
    api_as(bob).delete(f"/v1/packets/{packet['id']}")
    user_delete(actor=bob)
    events = list(TeamEvent.objects.filter(team=alpha, kind__startswith="packet.").order_by("id"))
    assert [(e.kind, e.actor_id, e.actor_name, e.detail["packet_id"]) for e in events] == [
        ("packet.pushed", None, "Bob Stone", packet["id"]),
        ("packet.deleted", None, "Bob Stone", packet["id"]),
    ]


def test_every_path_writes_the_line_packet_detail_declares(api_as, bob, alpha, beta):
    """Every packet change's line (push, re-push, publish, moves, delete) carries exactly what
    teams.events.packet_detail declares, cut to the same length."""
    goal = "Ship the importer, " + "é" * 300  # longer than a line keeps, not ASCII
    packet = packet_v02(goal=goal)
    api = api_as(bob)
    assert api.post("/v1/packets?team=alpha", packet).status_code == 201
    assert api.post("/v1/packets?team=alpha", packet).status_code == 201
    assert api.post(f"/v1/packets/{packet['id']}/publish").status_code == 200
    services.packet_move(actor=bob, packet_id=packet["id"], team=beta)
    assert api.delete(f"/v1/packets/{packet['id']}").status_code == 204
    stored = Packet(id=packet["id"], goal=goal)
    events = TeamEvent.objects.filter(kind__startswith="packet.").order_by("id")
    assert [(e.team_id, e.kind) for e in events] == [
        (alpha.pk, "packet.pushed"),
        (alpha.pk, "packet.repushed"),
        (alpha.pk, "packet.published"),
        (alpha.pk, "packet.moved_out"),
        (beta.pk, "packet.moved_in"),
        (beta.pk, "packet.deleted"),
    ]
    assert {len(e.detail["goal"]) for e in events} == {GOAL_CHARS}
    assert all(e.detail == packet_detail(stored) for e in events)


def test_no_trigger_writes_the_log():
    """The log's lines are written by teams.events alone: the database holds no trigger that
    writes them behind its back (migration 0008 removed the push triggers)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'packet_team%%'")
        else:
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'packet_team%'")
        assert cursor.fetchall() == []
