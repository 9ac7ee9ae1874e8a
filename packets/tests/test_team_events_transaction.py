"""A change to a team's packet and its line of the activity log are one transaction, on either
database: a change that commits has exactly its line, a line that cannot be written undoes its
change, and a change rolled back leaves no line. Transactional tests: each change commits for
real, as it does outside the tests' own transaction."""

import re
from contextlib import contextmanager

import pytest
from django.db import DatabaseError, connection, transaction

from packets import services
from packets.models import Packet
from packets.publishing import services as publishing
from packets.testing import packet_v02
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db(transaction=True)

WRITES_A_LINE = re.compile(rf'INSERT INTO "?{TeamEvent._meta.db_table}"?', re.IGNORECASE)


@contextmanager
def log_writes_fail():
    """Every statement that writes a line of the log fails, as a full disk would fail it."""

    def refuse(execute, sql, params, many, context):
        if WRITES_A_LINE.search(sql):
            raise DatabaseError("the activity log cannot be written")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(refuse):
        yield


@pytest.fixture
def teams(alice, bob):
    return make_team(alice, "alpha", members=[bob]), make_team(bob, "beta")


def stored(packet_id):
    return Packet.objects.filter(pk=packet_id).values("team_id", "goal", "public_slug").first()


def lines():
    return list(TeamEvent.objects.filter(kind__startswith="packet.").order_by("id").values_list("team_id", "kind"))


def test_each_change_that_commits_has_exactly_its_line(bob, teams):
    alpha, beta = teams
    packet = packet_v02(goal="Ship the importer")
    services.packet_push(actor=bob, packet=packet, team=alpha)
    services.packet_push(actor=bob, packet=dict(packet, goal="Ship it, v2"), team=alpha)
    publishing.packet_publish(actor=bob, packet_id=packet["id"])
    publishing.packet_unpublish(actor=bob, packet_id=packet["id"])
    services.packet_move(actor=bob, packet_id=packet["id"], team=beta)
    services.packet_delete(actor=bob, packet_id=packet["id"])
    assert lines() == [
        (alpha.pk, "packet.pushed"),
        (alpha.pk, "packet.repushed"),
        (alpha.pk, "packet.published"),
        (alpha.pk, "packet.unpublished"),
        (alpha.pk, "packet.moved_out"),
        (beta.pk, "packet.moved_in"),
        (beta.pk, "packet.deleted"),
    ]


CHANGES = {
    "push": lambda bob, alpha, beta, packet: services.packet_push(actor=bob, packet=packet_v02(), team=alpha),
    "re-push": lambda bob, alpha, beta, packet: services.packet_push(
        actor=bob, packet=dict(packet, goal="Ship it, v2"), team=alpha
    ),
    "publish": lambda bob, alpha, beta, packet: publishing.packet_publish(actor=bob, packet_id=packet["id"]),
    "move": lambda bob, alpha, beta, packet: services.packet_move(actor=bob, packet_id=packet["id"], team=beta),
    "delete": lambda bob, alpha, beta, packet: services.packet_delete(actor=bob, packet_id=packet["id"]),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_line_that_cannot_be_written_undoes_its_change(bob, teams, change):
    alpha, beta = teams
    packet = packet_v02(goal="Ship the importer")
    services.packet_push(actor=bob, packet=packet, team=alpha)
    packets, logged = list(Packet.objects.values("id", "team_id", "goal", "public_slug")), lines()
    with log_writes_fail(), pytest.raises(DatabaseError):
        CHANGES[change](bob, alpha, beta, packet)
    assert list(Packet.objects.values("id", "team_id", "goal", "public_slug")) == packets
    assert lines() == logged


def test_an_unpublish_whose_line_cannot_be_written_keeps_the_page(bob, teams):
    alpha, _ = teams
    packet = packet_v02()
    services.packet_push(actor=bob, packet=packet, team=alpha)
    page = publishing.packet_publish(actor=bob, packet_id=packet["id"]).public_slug
    with log_writes_fail(), pytest.raises(DatabaseError):
        publishing.packet_unpublish(actor=bob, packet_id=packet["id"])
    assert stored(packet["id"])["public_slug"] == page
    assert [kind for _, kind in lines()] == ["packet.pushed", "packet.published"]


class RolledBack(Exception):
    pass


def test_a_change_rolled_back_after_its_write_leaves_no_line(bob, teams):
    alpha, _ = teams
    packet = packet_v02()
    with pytest.raises(RolledBack), transaction.atomic():
        services.packet_push(actor=bob, packet=packet, team=alpha)
        assert stored(packet["id"]) is not None
        raise RolledBack
    assert stored(packet["id"]) is None
    assert lines() == []


def test_a_personal_push_needs_no_line_and_writes_none(bob, teams):
    packet = packet_v02()
    with log_writes_fail():
        services.packet_push(actor=bob, packet=packet, team=None)
    assert stored(packet["id"]) is not None
    assert lines() == []
