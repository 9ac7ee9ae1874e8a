"""The dashboard in a real browser: the journeys a person takes, end to end.

Sign up, create a team, invite a second person who joins through the link in their own browser,
see them in the member list and remove them; create a token, use it on the API, revoke it and
see the API refuse it. Screenshots of the main pages go to artifacts_dir.
"""

import json
import re
import urllib.error
import urllib.request

import pytest
from django.core import mail

from accounts.models import User
from packets.testing import packet_v02

from .testing import PASSWORD, confirm_in_dialog

pytestmark = pytest.mark.browser


def sign_up(page, base_url, username, start_path="/accounts/signup/"):
    """Fill allauth's sign-up form; confirm the email from the outbox if the hub requires it."""
    if start_path:
        page.goto(base_url + start_path)
    page.fill("input[name=email]", f"{username}@example.org")
    page.fill("input[name=username]", username)
    page.fill("input[name=password1]", PASSWORD)
    if page.locator("input[name=password2]").count():
        page.fill("input[name=password2]", PASSWORD)
    page.locator("form button[type=submit]").last.click()
    page.wait_for_load_state()
    if "confirm-email" in page.url:  # ACCOUNT_EMAIL_VERIFICATION=mandatory
        link = re.search(r"https?://\S+/accounts/confirm-email/\S+", mail.outbox[-1].body).group(0)
        page.goto(link)
        page.locator("form button[type=submit]").last.click()
        page.wait_for_load_state()


def api(base_url, path, token, body=None):
    """(status, parsed JSON) of a /v1 call with a bearer token, as the ltm client makes it."""
    request = urllib.request.Request(
        base_url + path,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST" if body is not None else "GET",
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_team_journey_invite_join_and_remove(live_server, new_page, artifacts_dir):
    base = live_server.url
    owner = new_page()
    sign_up(owner, base, "ada")
    assert owner.locator("h2", has_text="No packets yet").is_visible()
    assert owner.locator("pre.cmd").all_inner_texts()[0] == f"ltm auth {base}"
    assert owner.locator("main a", has_text="Get the client").first.get_attribute("href") == "/client/"
    owner.screenshot(path=str(artifacts_dir / "dashboard-empty.png"), full_page=True)

    owner.click("nav >> text=Teams")
    owner.fill("input[name=name]", "compilers")
    owner.click("button:has-text('Create team')")
    assert owner.url == base + "/teams/compilers"

    owner.click("button:has-text('Create invite link')")
    invite_url = owner.locator("#invite-url").input_value()
    assert invite_url.startswith(base + "/v1/invites/")

    guest = new_page()
    guest.goto(invite_url)
    guest.click("#signup")
    sign_up(guest, base, "grace", start_path=None)
    assert guest.url == invite_url  # signed up, back on the invite
    guest.click("#join")
    assert guest.url == base + "/teams/compilers"
    assert guest.locator(".message", has_text="You joined the team compilers").is_visible()

    owner.goto(base + "/teams/compilers")
    members = owner.locator("#members tbody tr")
    assert members.count() == 2
    assert members.nth(1).inner_text().startswith("grace")
    owner.click("button:has-text('Create invite link')")
    assert owner.locator("#invites tbody tr").count() == 1
    owner.screenshot(path=str(artifacts_dir / "dashboard-team.png"), full_page=True)

    members.nth(1).locator("button", has_text="Remove").click()
    confirm_in_dialog(owner)
    assert owner.locator(".message", has_text="grace was removed from compilers.").is_visible()
    assert owner.locator("#members tbody tr").count() == 1

    guest.goto(base + "/teams/compilers")
    assert guest.locator("h1", has_text="Not found").is_visible()


def test_token_journey_create_use_revoke(live_server, new_page, artifacts_dir):
    base = live_server.url
    page = new_page()
    sign_up(page, base, "linus")

    page.click("nav >> text=Tokens & devices")
    page.fill("input[name=name]", "ci")
    page.click("button:has-text('Create token')")
    token = page.locator("#new-token-value").inner_text().strip()
    assert token.startswith("ltm_")
    page.screenshot(path=str(artifacts_dir / "dashboard-tokens.png"), full_page=True)

    status, _ = api(base, "/v1/packets", token)
    assert status == 200
    goals = [
        ("Make the importer idempotent so re-runs never duplicate orders.", ["db", "importer"], "2026-04-01T09:00:00Z"),
        ("Cut the cold start of the API below 300 ms.", ["perf"], "2026-04-10T09:00:00Z"),
        ("Find why the nightly backup job skips Sundays.", ["ops", "cron"], "2026-04-18T22:41:03Z"),
    ]
    for goal, tags, created_at in goals:
        status, body = api(base, "/v1/packets", token, packet_v02(goal=goal, tags=tags, created_at=created_at))
        assert status == 201, body

    page.click("nav >> text=Packets")
    rows = page.locator(".plist-row")
    assert rows.count() == 3
    assert rows.first.inner_text().startswith("Find why the nightly backup")
    page.screenshot(path=str(artifacts_dir / "dashboard-packets.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts_dir / "dashboard-packets-390.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    page.click(".plist-row >> text=#perf")
    assert page.locator(".plist-row").count() == 1

    page.click("text=Cut the cold start of the API below 300 ms.")
    assert page.locator("#resume-block").text_content().startswith("# Resume from ltm packet")
    page.screenshot(path=str(artifacts_dir / "dashboard-packet.png"), full_page=True)

    page.click("nav >> text=Tokens & devices")
    page.locator("#tokens tbody tr", has_text="ci").locator("button", has_text="Revoke").click()
    confirm_in_dialog(page, screenshot=artifacts_dir / "dashboard-confirm-dialog.png")
    assert page.locator(".message", has_text="Token “ci” revoked.").is_visible()

    status, body = api(base, "/v1/packets", token)
    assert (status, body) == (401, {"error": "invalid token"})


def test_without_javascript_destructive_actions_ask_on_a_page(live_server, new_page, artifacts_dir, make_user):
    make_user("margaret", password=PASSWORD)
    page = new_page(java_script_enabled=False)
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=login]", "margaret")
    page.fill("input[name=password]", PASSWORD)
    page.locator("form button[type=submit]").last.click()

    page.goto(live_server.url + "/account")
    page.screenshot(path=str(artifacts_dir / "dashboard-account.png"), full_page=True)
    page.click("button:has-text('Delete my account')")
    assert page.locator("h1", has_text="Delete your account?").is_visible()
    page.screenshot(path=str(artifacts_dir / "dashboard-confirm-nojs.png"), full_page=True)
    page.click("button:has-text('Cancel'), a:has-text('Cancel')")
    assert page.url == live_server.url + "/account"
    assert User.objects.filter(username="margaret").exists()  # asking deleted nothing
