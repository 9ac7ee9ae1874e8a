"""Deleting a user in Django's admin keeps the packets they pushed to teams, as the person's own
"Delete account" does. (The admin cannot delete a current team member at all: memberships are
read-only there. Someone who left a team may still have pushed packets to it.)"""

import pytest

from core.testing import signed_in
from packets.models import Packet
from packets.services import packet_push
from packets.tests.factories import packet_v02
from teams.services import team_leave
from teams.tests.factories import make_team


@pytest.fixture
def staff(make_user):
    admin_user = make_user("root")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    return signed_in(admin_user)


@pytest.fixture
def bobs_packets(alice, bob):
    team = make_team(alice, members=[bob])
    shared, _ = packet_push(actor=bob, packet=packet_v02(), team=team)
    personal, _ = packet_push(actor=bob, packet=packet_v02())
    team_leave(actor=bob, team=team)
    return shared, personal


def assert_team_kept_the_shared_packet(alice, shared, personal):
    assert Packet.objects.get(pk=shared.pk).owner == alice  # the team's owner, of record
    assert not Packet.objects.filter(pk=personal.pk).exists()


def test_deleting_a_user_in_the_admin_hands_their_team_packets_to_the_team(staff, alice, bob, bobs_packets):
    response = staff.post(f"/admin/accounts/user/{bob.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert_team_kept_the_shared_packet(alice, *bobs_packets)


def test_the_admin_bulk_delete_hands_team_packets_to_the_team_too(staff, alice, bob, bobs_packets):
    response = staff.post(
        "/admin/accounts/user/", {"action": "delete_selected", "_selected_action": [bob.pk], "post": "yes"}
    )

    assert response.status_code == 302
    assert_team_kept_the_shared_packet(alice, *bobs_packets)
