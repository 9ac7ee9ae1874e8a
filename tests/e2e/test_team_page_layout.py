"""How the team pages, the sign-in page on the way to an app and the packets' search box look in a
real browser, at desktop width and on a 390px phone: the member table's buttons stay in their row,
the ownership question names the person, activity lines link their packets, the sign-in page says
which app it is for, and the search box's placeholder is not cut off. Each test leaves screenshots
in the artifacts folder (ARTIFACTS_DIR)."""

import re
from urllib.parse import urlencode

import pytest
from oauth2_provider.models import get_application_model
from playwright.sync_api import expect

from accounts.models import User
from packets.services import packet_delete
from packets.testing import push_packet
from teams.models import Membership
from teams.services import invite_create
from teams.testing import make_team

from .testing import PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP, PHONE = 1280, 390


@pytest.fixture
def alpha(make_user):
    """Team alpha: alice owns it, carol ("Carol Jones") is an admin, bob a plain member."""
    alice, bob, carol = (make_user(name, password=PASSWORD) for name in ("alice", "bob", "carol"))
    User.objects.filter(pk=carol.pk).update(display="Carol Jones")
    team = make_team(alice, "alpha", members=[bob])
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    return team


def signed_in_page(new_page, live_server, username, width):
    page = new_page(width=width)
    sign_in(page, live_server.url, username)
    return page


def inside(box, outer, slack=0.5) -> bool:
    return (
        box["x"] >= outer["x"] - slack
        and box["y"] >= outer["y"] - slack
        and box["x"] + box["width"] <= outer["x"] + outer["width"] + slack
        and box["y"] + box["height"] <= outer["y"] + outer["height"] + slack
    )


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_member_rows_buttons_sit_inside_their_row(live_server, new_page, artifacts_dir, alpha, width):
    alice = User.objects.get(username="alice")
    invite_create(actor=alice, team=alpha, email="sam@example.org", link=lambda code: f"{live_server.url}/{code}")
    page = signed_in_page(new_page, live_server, "alice", width)
    page.goto(live_server.url + "/teams/alpha")
    rows = (
        ("tr[data-member=bob]", ["Make admin", "Remove"]),
        ("tr[data-member=carol]", ["Make member", "Remove"]),
        ("#pending-invites tbody tr", ["Resend", "Revoke"]),
    )
    for selector, labels in rows:
        row = page.locator(selector)
        buttons = row.locator(".row-actions button")
        expect(buttons).to_have_text(labels)
        row_box = row.bounding_box()
        boxes = [buttons.nth(i).bounding_box() for i in range(buttons.count())]
        for box in boxes:
            assert inside(box, row_box), (selector, width, box, row_box)
            assert box["x"] + box["width"] <= width, (selector, width, box)  # never past the screen
        if width == DESKTOP:  # side by side, on one line
            assert abs(boxes[0]["y"] - boxes[1]["y"]) < 1 and boxes[0]["x"] < boxes[1]["x"], boxes
    page.screenshot(path=str(artifacts_dir / f"team-page-owner-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_member_sees_the_invite_link_form_on_its_own(live_server, new_page, artifacts_dir, alpha, width):
    page = signed_in_page(new_page, live_server, "bob", width)
    page.goto(live_server.url + "/teams/alpha")
    expect(page.locator("#invite-email-form")).to_have_count(0)
    expect(page.locator("#invite-link-form label")).not_to_contain_text("Or ")
    page.screenshot(path=str(artifacts_dir / f"team-page-member-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_ownership_question_names_the_member(live_server, new_page, artifacts_dir, alpha, width):
    page = signed_in_page(new_page, live_server, "alice", width)
    page.goto(live_server.url + "/teams/alpha")
    offer = page.locator("#transfer-candidates li", has_text="Carol Jones")
    offer.get_by_role("button").click()
    dialog = page.locator("dialog.confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Offer the ownership of alpha to Carol Jones?")
    expect(dialog).not_to_contain_text("this member")
    page.screenshot(path=str(artifacts_dir / f"team-transfer-dialog-{width}.png"))
    dialog.locator("button.confirm-ok").click()
    expect(page.locator(".message")).to_contain_text("Ownership offered to Carol Jones.")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_activity_lines_link_the_packets_that_still_exist(live_server, new_page, artifacts_dir, alpha, width):
    bob = User.objects.get(username="bob")
    kept = push_packet(bob, team=alpha, goal="Ship the importer")
    gone = push_packet(bob, team=alpha, goal="A dead end")
    packet_delete(actor=bob, packet_id=gone.pk)
    page = signed_in_page(new_page, live_server, "bob", width)
    page.goto(live_server.url + "/teams/alpha/activity")
    lines = page.locator(".timeline li")
    expect(lines.filter(has_text="Ship the importer").locator(f'a[href="/packets/{kept.pk}"]')).to_have_count(1)
    expect(lines.filter(has_text="A dead end").locator("a")).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / f"team-activity-{width}.png"), full_page=True)
    lines.filter(has_text="Ship the importer").get_by_role("link").click()
    expect(page.locator("h1")).to_contain_text("Ship the importer")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_signing_in_on_the_way_to_an_app_says_which(live_server, new_page, artifacts_dir, width):
    app = get_application_model().objects.create(
        name="Claude Code",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:47999/callback",
    )
    authorize = "/oauth/authorize?" + urlencode({"client_id": app.client_id, "response_type": "code"})
    page = new_page(width=width)
    page.goto(live_server.url + authorize)
    expect(page).to_have_url(
        re.compile(r"/accounts/login/\?next=%2Foauth%2Fauthorize|/accounts/login/\?next=/oauth/authorize")
    )
    expect(page.locator(".entrance-why")).to_contain_text("Sign in to connect Claude Code to this hub")
    page.screenshot(path=str(artifacts_dir / f"login-oauth-next-{width}.png"), full_page=True)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_search_boxs_placeholder_is_not_cut_off(live_server, new_page, artifacts_dir, make_user, width):
    alice = make_user("alice", password=PASSWORD)
    push_packet(alice, goal="Something to list")
    page = signed_in_page(new_page, live_server, "alice", width)
    page.goto(live_server.url + "/")
    search = page.locator("input[name=q]")
    text_width, room = search.evaluate(
        """input => {
            const style = getComputedStyle(input);
            const context = document.createElement("canvas").getContext("2d");
            context.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
            const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return [context.measureText(input.placeholder).width, room];
        }"""
    )
    assert search.get_attribute("placeholder")
    assert text_width <= room, (width, text_width, room)
    page.locator("form[role=search]").screenshot(path=str(artifacts_dir / f"packets-search-box-{width}.png"))
