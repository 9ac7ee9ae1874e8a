"""The team page's invites and members: invite links and mails, roles, removing, the ownership's
transfer and leaving, each with its rights."""

import pytest

from core.testing import signed_in
from teams.models import Invite, Membership, Team
from teams.services import invite_create
from teams.testing import make_team


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member."""
    return make_team(alice, "core", members=[bob])


def is_member(user, team) -> bool:
    return Membership.objects.filter(team=team, user=user).exists()


# Invites


def test_any_member_creates_an_invite_link_shown_once(bob, team):
    client = signed_in(bob)
    response = client.post("/teams/core/invites")
    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    invite = Invite.objects.get(team=team)

    first = response.content.decode()
    again = client.get("/teams/core").content.decode()

    assert 'id="invite-url" value="http://testserver/v1/invites/' in first
    assert "/v1/invites/" not in again
    assert invite.created_by == bob


def test_an_invite_created_a_moment_ago_reads_just_now(alice, team):
    invite_create(actor=alice, team=team)
    body = signed_in(alice).get("/teams/core").content.decode()
    assert "just now" in body and "0\xa0minutes" not in body


def test_owner_revokes_an_invite_after_confirming(alice, team):
    invite, _ = invite_create(actor=alice, team=team)
    client = signed_in(alice)

    asked = client.post(f"/teams/core/invites/{invite.pk}/revoke")
    assert b"Revoke this invite link?" in asked.content
    client.post(f"/teams/core/invites/{invite.pk}/revoke", {"confirmed": "yes"})

    invite.refresh_from_db()
    assert invite.revoked_at is not None


def test_a_member_cannot_revoke_an_invite(alice, bob, team):
    invite, _ = invite_create(actor=alice, team=team)
    response = signed_in(bob).post(f"/teams/core/invites/{invite.pk}/revoke", {"confirmed": "yes"}, follow=True)
    invite.refresh_from_db()
    assert invite.revoked_at is None
    assert "only the team owner or an admin can do this" in response.content.decode()


def test_the_owner_invites_by_email_and_resends(alice, team, mailoutbox, django_capture_on_commit_callbacks):
    client = signed_in(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/teams/core/invites", {"email": "sam@example.org"}, follow=True)
    assert "Invite sent to sam@example.org." in response.content.decode()
    assert "/v1/invites/" not in response.content.decode()  # the link goes by mail only
    invite = Invite.objects.get(team=team)
    assert invite.email == "sam@example.org" and "http://testserver/v1/invites/" in mailoutbox[0].body
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/teams/core/invites/{invite.pk}/resend", follow=True)
    assert "Invite sent again to sam@example.org" in response.content.decode() and len(mailoutbox) == 2


def test_a_member_cannot_invite_by_email_but_labels_a_link(bob, team, mailoutbox):
    client = signed_in(bob)
    response = client.post("/teams/core/invites", {"email": "sam@example.org"}, follow=True)
    assert "only the team owner or an admin can do this" in response.content.decode()
    assert not Invite.objects.exists() and mailoutbox == []
    response = client.post("/teams/core/invites", {"label": "Kim"})
    assert response.status_code == 201 and "Invite link for Kim" in response.content.decode()
    assert Invite.objects.get().label == "Kim"


def test_the_owner_promotes_and_demotes_on_the_page(alice, bob, team):
    response = signed_in(alice).post(f"/teams/core/members/{bob.pk}/role", {"role": "admin"}, follow=True)
    assert Membership.objects.get(team=team, user=bob).role == "admin"
    assert "bob is now an admin of core." in response.content.decode()
    signed_in(alice).post(f"/teams/core/members/{bob.pk}/role", {"role": "member"})
    assert Membership.objects.get(team=team, user=bob).role == "member"
    response = signed_in(bob).post(f"/teams/core/members/{bob.pk}/role", {"role": "admin"}, follow=True)
    assert "only the team owner can do this" in response.content.decode()
    assert Membership.objects.get(team=team, user=bob).role == "member"


# Members


def test_owner_removes_a_member(alice, bob, team):
    response = signed_in(alice).post(f"/teams/core/members/{bob.pk}/remove", {"confirmed": "yes"}, follow=True)
    assert not is_member(bob, team)
    assert "bob was removed from core." in response.content.decode()


def test_removing_asks_for_confirmation_first(alice, bob, team):
    response = signed_in(alice).post(f"/teams/core/members/{bob.pk}/remove")
    assert b"Remove bob from core?" in response.content
    assert is_member(bob, team)


def test_a_member_cannot_remove_people(alice, bob, carol, team):
    Membership.objects.create(team=team, user=carol, role=Membership.MEMBER)
    response = signed_in(bob).post(f"/teams/core/members/{carol.pk}/remove", {"confirmed": "yes"}, follow=True)
    assert is_member(carol, team)
    assert "only the team owner or an admin can do this" in response.content.decode()


def test_the_owner_cannot_be_removed(alice, team):
    response = signed_in(alice).post(f"/teams/core/members/{alice.pk}/remove", {"confirmed": "yes"}, follow=True)
    assert is_member(alice, team)
    assert "the owner cannot be removed" in response.content.decode()


def test_transfer_ownership_is_offered_then_accepted_by_the_member(alice, bob, team):
    signed_in(alice).post("/teams/core/transfer", {"new_owner_id": bob.pk, "confirmed": "yes"})
    team.refresh_from_db()
    assert team.owner == alice and team.transfer_to == bob
    offers = signed_in(bob).get("/teams").content.decode()
    assert (
        "offers you the ownership of <strong>core</strong>" in offers and 'href="/teams/core#transfer-offer"' in offers
    )
    assert "Accept ownership" in signed_in(bob).get("/teams/core").content.decode()
    assert "Accept ownership" not in signed_in(alice).get("/teams/core").content.decode()

    response = signed_in(bob).post("/teams/core/transfer/accept", follow=True)
    team.refresh_from_db()
    assert team.owner == bob and team.transfer_to is None
    assert Membership.objects.get(team=team, user=alice).role == Membership.ADMIN
    assert "You now own core." in response.content.decode()


def test_an_ownership_offer_is_declined_or_withdrawn(alice, bob, team):
    signed_in(alice).post("/teams/core/transfer", {"new_owner_id": bob.pk, "confirmed": "yes"})
    signed_in(bob).post("/teams/core/transfer/cancel")
    team.refresh_from_db()
    assert team.transfer_to is None and team.owner == alice

    signed_in(alice).post("/teams/core/transfer", {"new_owner_id": bob.pk, "confirmed": "yes"})
    signed_in(alice).post("/teams/core/transfer/cancel")
    team.refresh_from_db()
    assert team.transfer_to is None
    assert signed_in(bob).post("/teams/core/transfer/accept").status_code == 404  # nothing to accept
    assert Team.objects.get(pk=team.pk).owner == alice


def test_a_member_cannot_transfer_ownership(alice, bob, team):
    response = signed_in(bob).post("/teams/core/transfer", {"new_owner_id": bob.pk, "confirmed": "yes"}, follow=True)
    team.refresh_from_db()
    assert team.owner == alice
    assert Membership.objects.get(team=team, user=bob).role == Membership.MEMBER
    assert "only the team owner can do this" in response.content.decode()


def test_a_member_leaves(bob, team):
    response = signed_in(bob).post("/teams/core/leave", {"confirmed": "yes"})
    assert response.status_code == 302 and response["Location"] == "/teams"
    assert not is_member(bob, team)


def test_the_owner_cannot_leave(alice, team):
    response = signed_in(alice).post("/teams/core/leave", {"confirmed": "yes"}, follow=True)
    assert is_member(alice, team)
    assert "the owner cannot leave the team" in response.content.decode()
