"""An invite link in a real browser: a newcomer signs up from it and lands in the team; the same
link opened again says it was used."""

import re

import pytest
from playwright.sync_api import expect

from teams.models import Membership
from teams.testing import make_invite, make_team

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_newcomer_signs_up_from_an_invite_and_lands_in_the_team(live_server, new_page, make_user, artifacts_dir):
    alice = make_user("alice")
    alice.display = "Alice Martin"
    alice.save()
    team = make_team(alice, "alpha")
    _, code = make_invite(team)
    invite_url = f"{live_server.url}/v1/invites/{code}"

    page = new_page()
    page.goto(invite_url)
    expect(page.locator("h1")).to_have_text("Join alpha")
    expect(page.locator(".lead")).to_contain_text("Alice Martin invited you")
    expect(page.locator(".invite-expiry")).to_contain_text("This link expires on")
    page.screenshot(path=str(artifacts_dir / "invite.png"), full_page=True)

    page.click("#signup")
    page.fill("input[name=email]", "dana@example.org")
    page.fill("input[name=username]", "dana")
    page.fill("input[name=password1]", "a long and unusual passphrase")
    page.fill("input[name=password2]", "a long and unusual passphrase")
    page.click("form button[type=submit]")

    # Back on the invite, signed in: one click joins.
    expect(page).to_have_url(invite_url)
    page.click("#join")

    expect(page).to_have_url(re.compile(r"/teams/alpha$"))
    assert Membership.objects.filter(team=team, user__username="dana", role="member").exists()
    expect(page.locator("body")).to_contain_text("You joined the team alpha.")
    page.screenshot(path=str(artifacts_dir / "invite_joined.png"), full_page=True)

    # The link worked once: opened again (by anyone) it says so.
    again = new_page()
    response = again.goto(invite_url)
    assert response.status == 410
    expect(again.locator("h1")).to_have_text("This invite link was already used")
    again.screenshot(path=str(artifacts_dir / "invite_used.png"), full_page=True)


def test_someone_who_joined_from_the_cli_claims_a_web_sign_in(
    live_server, new_page, make_user, anon_api, artifacts_dir
):
    from teams.services import invite_accept

    _, code = make_invite(make_team(make_user("alice"), "alpha"))
    user, _, token = invite_accept(code=code, display="Dana")  # what `ltm join` does
    claim_url = type(anon_api)(token).post("/v1/account/claim-link", {}).json()["url"]
    path = claim_url.removeprefix("http://testserver")

    page = new_page()
    page.goto(live_server.url + path)
    expect(page.locator("h1")).to_have_text("Set up your web sign-in")
    page.fill("input[name=email]", "dana@example.org")
    page.fill("input[name=password1]", "a long and unusual passphrase")
    page.fill("input[name=password2]", "a long and unusual passphrase")
    page.screenshot(path=str(artifacts_dir / "claim.png"), full_page=True)
    page.click("form.claim-form button[type=submit]")

    expect(page.locator(".messages")).to_contain_text(f"You can now sign in on the web as {user.username}")
    user.refresh_from_db()
    assert user.email == "dana@example.org" and user.has_usable_password()

    page.goto(live_server.url + path)
    expect(page.locator("h1")).to_have_text("This link can no longer be used")
    page.screenshot(path=str(artifacts_dir / "claim_used.png"), full_page=True)
