"""Who may share a packet by name, and when a share ends (issue 25), on the wire.

A personal packet is shared by its creator; a team packet by any member, only while the team
allows sharing outside it (`share_outside`, off until its owner or an admin turns it on). A share
ends when the packet goes (deleted, or with its team), when its sender may no longer share the
packet (they left or were removed, the team stopped sharing outside it, the packet moved), and
the recipient always reads what the creator pushed last."""

import json

import pytest
from django.contrib.messages import get_messages

from core.testing import signed_in
from packets.models import Share
from packets.testing import packet_v02, push_packet
from packets.testing.sharing import NOT_FOUND, allow_sharing_outside, share, team_settings
from teams.models import Membership
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, adam, dave):
    """alice owns alpha, adam administers it, dave is a plain member."""
    team = make_team(alice, "alpha", members=[dave])
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    return team


@pytest.fixture
def team_packet(alpha, dave):
    """A packet dave pushed to alpha."""
    return push_packet(dave, team=alpha, goal="Tune the importer")


@pytest.fixture(autouse=True)
def _outsiders(bob, carol):
    """bob and carol are in no team: the people shared with."""


def reads(api, packet_id) -> bool:
    response = api.get(f"/v1/packets/{packet_id}")
    assert response.status_code in (200, 404), response.content
    assert response.status_code == 200 or response.json() == NOT_FOUND
    return response.status_code == 200


# Who may share.


def test_a_personal_packet_is_shared_by_its_creator_only(api_as, alice, bob, carol, dave, alpha):
    packet = push_packet(alice)
    made = share(api_as(alice), packet.id, "bob")
    assert made.status_code == 201
    again = share(api_as(bob), packet.id, "carol")  # the recipient reads it, may not hand it on
    assert again.status_code == 403
    assert again.json() == {
        "error": "only the packet's creator can share a personal packet, and only its team's members a team packet"
    }
    for outsider in (dave, carol):  # alice's teammate, a stranger
        assert share(api_as(outsider), packet.id, "bob").json() == NOT_FOUND
    assert list(Share.objects.values_list("sender__username", "recipient__username")) == [("alice", "bob")]


def test_a_team_packet_is_not_shared_while_the_team_does_not_allow_it(api_as, alice, adam, dave, team_packet):
    for member in (dave, adam, alice):  # its creator, an admin, the owner
        refused = share(api_as(member), team_packet.id, "bob")
        assert refused.status_code == 403, member
        assert "share_outside" in refused.json()["error"] and "alpha" in refused.json()["error"]
    assert not Share.objects.exists()


def test_once_the_team_allows_it_any_member_shares_a_team_packet(api_as, alice, adam, dave, alpha, make_user):
    member = make_user("erin")
    Membership.objects.create(team=alpha, user=member)
    packet = push_packet(dave, team=alpha)
    allow_sharing_outside(api_as(adam), "alpha")
    for sharer, to in ((dave, "bob"), (member, "bob"), (adam, "carol"), (alice, "carol")):
        response = share(api_as(sharer), packet.id, to)
        assert response.status_code == 201, (sharer, response.content)
        assert response.json()["share"]["from"]["id"] == sharer.id
    assert Share.objects.count() == 4
    assert share(api_as(make_user("frank")), packet.id, "bob").json() == NOT_FOUND  # not a member


def test_sharing_with_a_member_of_the_packets_team_is_allowed_and_harmless(api_as, alice, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    response = share(api_as(dave), team_packet.id, "alice")
    assert response.status_code == 201
    assert [item["id"] for item in api_as(alice).get("/v1/shares").json()["shares"]] == [response.json()["share"]["id"]]
    assert api_as(alice).delete(f"/v1/shares/{response.json()['share']['id']}").status_code == 204
    assert reads(api_as(alice), team_packet.id)  # her team's packet all along


def test_a_recipient_of_a_team_packet_may_not_share_it_on(api_as, alice, bob, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    assert share(api_as(dave), team_packet.id, "bob").status_code == 201
    refused = share(api_as(bob), team_packet.id, "carol")
    assert refused.status_code == 403
    assert Share.objects.count() == 1


# When a share ends, or changes.


def test_the_recipient_reads_what_the_creator_pushed_last(api_as, alice, bob):
    packet = packet_v02(goal="first draft")
    assert api_as(alice).post("/v1/packets", packet).status_code == 201
    share(api_as(alice), packet["id"], "bob")
    assert json.loads(api_as(bob).get(f"/v1/packets/{packet['id']}").content)["goal"] == "first draft"
    assert api_as(alice).post("/v1/packets", dict(packet, goal="second draft")).status_code == 201
    pulled = api_as(bob).get(f"/v1/packets/{packet['id']}")
    assert pulled.content == api_as(alice).get(f"/v1/packets/{packet['id']}").content
    assert json.loads(pulled.content)["goal"] == "second draft"


def test_deleting_the_packet_ends_the_share_and_a_re_push_does_not_revive_it(api_as, alice, bob):
    packet = packet_v02()
    assert api_as(alice).post("/v1/packets", packet).status_code == 201
    share(api_as(alice), packet["id"], "bob")
    assert api_as(alice).delete(f"/v1/packets/{packet['id']}").status_code == 204
    assert not Share.objects.exists()
    assert not reads(api_as(bob), packet["id"])
    assert api_as(alice).post("/v1/packets", packet).status_code == 201  # the same id again
    assert not reads(api_as(bob), packet["id"])
    assert api_as(bob).get("/v1/shares").json() == {"shares": []}


def test_a_team_manager_deleting_the_packet_ends_its_shares(api_as, adam, bob, dave, team_packet):
    allow_sharing_outside(api_as(adam), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    assert api_as(adam).delete(f"/v1/packets/{team_packet.id}").status_code == 204
    assert not Share.objects.exists()
    assert not reads(api_as(bob), team_packet.id)


def test_deleting_the_team_ends_the_share(api_as, alice, bob, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    assert api_as(alice).delete("/v1/teams/alpha").status_code == 204
    assert not Share.objects.exists()
    assert not reads(api_as(bob), team_packet.id)


def test_the_sender_leaving_the_team_ends_their_shares_only(api_as, alice, bob, carol, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    share(api_as(alice), team_packet.id, "carol")
    assert reads(api_as(bob), team_packet.id)
    assert api_as(dave).post("/v1/teams/alpha/leave", {}).status_code == 204
    assert not reads(api_as(bob), team_packet.id)
    assert reads(api_as(carol), team_packet.id)  # alice is still in the team
    assert list(Share.objects.values_list("sender__username", flat=True)) == ["alice"]


def test_the_sender_being_removed_ends_their_shares(api_as, adam, bob, dave, team_packet):
    allow_sharing_outside(api_as(adam), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    assert api_as(adam).delete(f"/v1/teams/alpha/members/{dave.id}").status_code == 204
    assert not reads(api_as(bob), team_packet.id)
    assert not Share.objects.exists()


def test_a_member_leaving_who_shared_nothing_ends_nothing(api_as, alice, adam, bob, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    assert api_as(adam).post("/v1/teams/alpha/leave", {}).status_code == 204
    assert reads(api_as(bob), team_packet.id)


def test_turning_the_setting_off_ends_the_team_packets_shares(api_as, alice, adam, bob, carol, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    share(api_as(dave), team_packet.id, "bob")
    personal = push_packet(dave)
    share(api_as(dave), personal.id, "carol")
    assert reads(api_as(bob), team_packet.id)
    response = team_settings(api_as(adam), "alpha", {"share_outside": False})
    assert (response.status_code, response.json()["team"]["share_outside"]) == (200, False)
    assert not reads(api_as(bob), team_packet.id)  # the next request
    assert reads(api_as(carol), personal.id)  # dave's personal packet is not the team's to rule
    assert list(Share.objects.values_list("packet_id", flat=True)) == [personal.id]
    assert share(api_as(dave), team_packet.id, "bob").status_code == 403


def test_moving_a_team_packet_out_ends_the_shares_other_members_made(api_as, alice, bob, carol, dave, team_packet):
    allow_sharing_outside(api_as(alice), "alpha")
    share(api_as(alice), team_packet.id, "bob")
    share(api_as(dave), team_packet.id, "carol")
    moved = signed_in(dave).post(f"/packets/{team_packet.id}/move", {"to": "personal"})
    assert [m.level_tag for m in get_messages(moved.wsgi_request)] == ["success"]
    assert not reads(api_as(bob), team_packet.id)  # alice may not share dave's personal packet
    assert reads(api_as(carol), team_packet.id)  # dave may: it is his
    assert list(Share.objects.values_list("sender__username", flat=True)) == ["dave"]


def test_moving_a_personal_packet_into_a_team_that_does_not_share_ends_its_shares(api_as, bob, dave, alpha):
    packet = push_packet(dave)
    share(api_as(dave), packet.id, "bob")
    moved = signed_in(dave).post(f"/packets/{packet.id}/move", {"to": "team:alpha"})
    assert [m.level_tag for m in get_messages(moved.wsgi_request)] == ["success"]
    assert not reads(api_as(bob), packet.id)
    assert not Share.objects.exists()


def test_moving_a_personal_packet_into_a_team_that_shares_keeps_its_shares(api_as, alice, bob, dave, alpha):
    allow_sharing_outside(api_as(alice), "alpha")
    packet = push_packet(dave)
    share(api_as(dave), packet.id, "bob")
    signed_in(dave).post(f"/packets/{packet.id}/move", {"to": "team:alpha"})
    assert reads(api_as(bob), packet.id)
