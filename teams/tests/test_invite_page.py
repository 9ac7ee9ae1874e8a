"""The invite link opened in a browser: what it shows, and joining with the session."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from core.testing import signed_in
from teams.models import Invite, Membership
from teams.services import invite_accept, invite_revoke
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice):
    alice.display = "Alice A."
    alice.save()
    return make_team(alice, "alpha")


@pytest.fixture
def invite(alpha):
    return make_invite(alpha)


def test_signed_out_page_names_team_inviter_and_expiry_and_offers_sign_up(client, invite):
    row, code = invite
    response = client.get(f"/v1/invites/{code}")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'Join <span class="mono">alpha</span>' in html
    assert "<strong>Alice A.</strong> invited you" in html
    assert timezone.localtime(row.expires_at).strftime("%-d %B %Y") in html
    assert f"/accounts/signup/?next=%2Fv1%2Finvites%2F{code}" in html
    assert f"/accounts/login/?next=%2Fv1%2Finvites%2F{code}" in html
    assert f"ltm join http://testserver/v1/invites/{code}" in html
    assert response["Cache-Control"].startswith("max-age=0")


def test_a_signed_in_person_joins_with_the_button_and_lands_on_the_team_page(carol, alpha, invite):
    _, code = invite
    browser = signed_in(carol)
    page = browser.get(f"/v1/invites/{code}").content.decode()
    assert 'id="join"' in page

    response = browser.post(f"/v1/invites/{code}")

    assert response.status_code == 302
    assert response["Location"] == "/teams/alpha"
    assert Membership.objects.get(team=alpha, user=carol).role == "member"
    assert Invite.objects.get().used_by == carol


def test_joining_needs_the_csrf_token(carol, alpha, invite):
    _, code = invite
    browser = signed_in(carol, enforce_csrf_checks=True)
    assert browser.post(f"/v1/invites/{code}").status_code == 403
    assert not Membership.objects.filter(team=alpha, user=carol).exists()


def test_posting_signed_out_sends_to_sign_in_and_keeps_the_invite(client, invite):
    _, code = invite
    response = client.post(f"/v1/invites/{code}")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=%2Fv1%2Finvites%2F{code}"
    assert Invite.objects.get().used_at is None


def test_a_member_sees_they_are_in_already(alice, invite):
    _, code = invite
    html = signed_in(alice).get(f"/v1/invites/{code}").content.decode()
    assert "already a member" in html
    assert 'href="/teams/alpha"' in html
    assert 'id="join"' not in html


def test_a_used_link_says_so_with_410(client, carol, invite):
    _, code = invite
    invite_accept(code=code, actor=carol)
    response = client.get(f"/v1/invites/{code}")
    assert response.status_code == 410
    assert "This invite link was already used" in response.content.decode()
    assert "alpha" not in response.content.decode()  # a stranger learns nothing about the team


def test_the_person_who_used_it_gets_a_way_to_their_team(carol, invite):
    _, code = invite
    invite_accept(code=code, actor=carol)
    response = signed_in(carol).get(f"/v1/invites/{code}")
    assert response.status_code == 410
    assert 'href="/teams/alpha"' in response.content.decode()


def test_joining_with_a_link_used_meanwhile_says_it_was_used(carol, make_user, invite):
    _, code = invite
    browser = signed_in(carol)
    browser.get(f"/v1/invites/{code}")
    invite_accept(code=code, actor=make_user("dave"))
    response = browser.post(f"/v1/invites/{code}")
    assert response.status_code == 410
    assert "already used" in response.content.decode()


def test_an_expired_link_says_so_with_410(client, alpha, invite):
    row, code = invite
    Invite.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = client.get(f"/v1/invites/{code}")
    assert response.status_code == 410
    assert "This invite link has expired" in response.content.decode()


def test_a_revoked_link_says_so(client, alice, alpha, invite):
    row, code = invite
    invite_revoke(actor=alice, team=alpha, invite_id=row.id)
    response = client.get(f"/v1/invites/{code}")
    assert response.status_code == 410
    assert "revoked" in response.content.decode()


def test_an_unknown_link_is_404_and_says_it_is_not_valid(client, alpha):
    response = client.get("/v1/invites/" + "f" * 48)
    assert response.status_code == 404
    assert "This invite link is not valid" in response.content.decode()


def test_team_names_are_escaped(client, make_user):
    owner = make_user("mallory")
    owner.display = "<script>alert(1)</script>"
    owner.save()
    _, code = make_invite(make_team(owner, "beta"))
    html = client.get(f"/v1/invites/{code}").content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


# A hub with sign-up closed (LTM_SIGNUP_OPEN=0) still lets an invitee sign up from the link.

SIGNUP = {
    "email": "erin@example.org",
    "username": "erin",
    "password1": "a-long-and-unusual-passphrase",
    "password2": "a-long-and-unusual-passphrase",
}


def test_closed_sign_up_refuses_a_plain_sign_up(client, settings):
    settings.LTM_SIGNUP_OPEN = False
    response = client.post("/accounts/signup/", SIGNUP)
    assert "closed" in response.content.decode().lower()
    assert not User.objects.filter(username="erin").exists()


def test_closed_sign_up_still_lets_an_invitee_sign_up_and_join(client, settings, alpha, invite):
    settings.LTM_SIGNUP_OPEN = False
    _, code = invite
    next_path = f"/v1/invites/{code}"
    assert 'name="username"' in client.get("/accounts/signup/", {"next": next_path}).content.decode()

    response = client.post("/accounts/signup/", {**SIGNUP, "next": next_path})
    assert response.status_code == 302 and response["Location"] == next_path

    joined = client.post(next_path)
    assert joined.status_code == 302
    assert Membership.objects.filter(team=alpha, user__username="erin").exists()


@pytest.mark.parametrize("kind", ["unknown", "used", "not-an-invite"])
def test_closed_sign_up_needs_a_usable_invite(client, settings, carol, invite, kind):
    settings.LTM_SIGNUP_OPEN = False
    _, code = invite
    next_path = {"unknown": "/v1/invites/" + "f" * 48, "used": f"/v1/invites/{code}", "not-an-invite": "/teams"}[kind]
    if kind == "used":
        invite_accept(code=code, actor=carol)
    response = client.post("/accounts/signup/", {**SIGNUP, "next": next_path})
    assert "closed" in response.content.decode().lower()
    assert not User.objects.filter(username="erin").exists()
