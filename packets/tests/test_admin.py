"""The site admin over packets and the rows around them: it lists and changes, never adds, and
deleting a user there keeps the packets they pushed to teams, as the person's own "Delete
account" does. (The admin cannot delete a current team member at all: memberships are read-only
there. Someone who left a team may still have pushed packets to it.)"""

import pytest

from accounts.services import api_token_create
from accounts.testing import make_admin
from core.testing import signed_in
from packets.models import Packet
from packets.services import packet_push
from packets.testing import packet_v02
from teams.services import invite_create, team_leave
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_admin_cannot_add_packets_tokens_or_invites_but_can_list_and_change_them(alice, bob):
    """Those rows are made by the API or the dashboard (hashed secrets, a validated body); an admin
    "Add" form could only make broken ones."""
    make_admin(alice)
    team = make_team(bob, "core")
    packet = packet_push(actor=bob, packet=packet_v02())
    token, _ = api_token_create(actor=bob, name="laptop")
    invite, _ = invite_create(actor=bob, team=team)
    client = signed_in(alice)

    for model, pk in (("packets/packet", packet.pk), ("accounts/apitoken", token.pk), ("teams/invite", invite.pk)):
        assert client.get(f"/admin/{model}/add/").status_code == 403, model
        listing = client.get(f"/admin/{model}/")
        assert listing.status_code == 200, model
        assert f'href="/admin/{model}/add/"' not in listing.content.decode(), model
        assert client.get(f"/admin/{model}/{pk}/change/").status_code == 200, model

    changed = client.post(f"/admin/accounts/apitoken/{token.pk}/change/", {"name": "old laptop", "user": bob.pk})
    assert changed.status_code == 302
    token.refresh_from_db()
    assert token.name == "old laptop"


@pytest.fixture
def staff(make_user):
    return signed_in(make_admin(make_user("root")))


@pytest.fixture
def bobs_packets(alice, bob):
    team = make_team(alice, members=[bob])
    shared = packet_push(actor=bob, packet=packet_v02(), team=team)
    personal = packet_push(actor=bob, packet=packet_v02())
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
