"""Team administration in a real browser: an admin invites by e-mail and the invitee joins from the
mail's link, the ownership is offered and accepted, and the activity log shows each kind of event."""

import re

import pytest
from django.core import mail
from django.db import transaction
from playwright.sync_api import expect

from packets import services as packet_services
from packets.publishing import services as publishing
from packets.scan import findings
from packets.sharing import services as shares
from packets.testing import packet_v02
from teams import services
from teams.models import Membership, Team, TeamEvent
from teams.testing import make_team
from webhooks import services as webhooks
from webhooks.delivery import OFF_GONE, webhook_turn_off

from .testing import PASSWORD, signed_in_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_invites_by_email_and_the_invitee_joins_from_the_mail(live_server, new_page, make_user, artifacts_dir):
    alice, adam = make_user("alice", password=PASSWORD), make_user("adam", password=PASSWORD)
    team = make_team(alice, "alpha")
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    base = live_server.url

    admin = signed_in_page(new_page, base, "adam")
    admin.goto(base + "/teams/alpha")
    admin.fill("#invite-email", "sam@example.org")
    admin.click("#invite-email-form button[type=submit]")
    expect(admin.locator(".message")).to_contain_text("Invite sent to sam@example.org.")
    row = admin.locator("#pending-invites tbody tr").first
    expect(row).to_contain_text("sam@example.org")
    expect(row).to_contain_text("you")  # who made it
    expect(row).to_contain_text("in 6\xa0days")  # when it expires
    admin.screenshot(path=str(artifacts_dir / "team-invite-mailed.png"), full_page=True)

    [sent] = mail.outbox
    assert sent.to == ["sam@example.org"]
    link = re.search(rf"{re.escape(base)}/v1/invites/[0-9a-f]{{48}}", sent.body).group(0)

    invitee = new_page()
    invitee.goto(link)
    expect(invitee.locator("h1")).to_have_text("Join alpha")
    invitee.click("#signup")
    invitee.fill("input[name=email]", "sam@example.org")
    invitee.fill("input[name=username]", "sam")
    invitee.fill("input[name=password1]", PASSWORD)
    invitee.fill("input[name=password2]", PASSWORD)
    invitee.click("form button[type=submit]")
    expect(invitee).to_have_url(link)
    invitee.click("#join")
    expect(invitee).to_have_url(re.compile(r"/teams/alpha$"))
    assert Membership.objects.get(team=team, user__username="sam").role == "member"

    admin.goto(base + "/teams/alpha")
    expect(admin.locator("#pending-invites")).to_have_count(0)
    expect(admin.locator("#activity")).to_contain_text("sam joined the team")


def test_the_ownership_is_offered_and_accepted(live_server, new_page, make_user, artifacts_dir):
    alice, bob = make_user("alice", password=PASSWORD), make_user("bob", password=PASSWORD)
    make_team(alice, "alpha", members=[bob])
    base = live_server.url

    owner = signed_in_page(new_page, base, "alice")
    owner.goto(base + "/teams/alpha")
    owner.get_by_role("button", name="Offer ownership to bob").click()
    expect(owner.locator("dialog.confirm-dialog")).to_contain_text("Offer the ownership of alpha to bob?")
    owner.locator("dialog.confirm-dialog button.confirm-ok").click()
    expect(owner.locator(".message")).to_contain_text("Ownership offered to bob.")
    expect(owner.locator("#transfer-pending")).to_contain_text("You offered the ownership to bob")
    assert Team.objects.get(name="alpha").owner == alice

    member = signed_in_page(new_page, base, "bob")
    member.goto(base + "/teams")
    expect(member.locator(".transfer-offer")).to_contain_text("alice offers you the ownership of alpha")
    member.click(".transfer-offer a")
    expect(member.locator("#transfer-offer h2")).to_have_text("alice offers you the ownership of alpha")
    member.screenshot(path=str(artifacts_dir / "team-transfer-offer.png"), full_page=True)
    member.click("#accept-ownership")
    expect(member.locator(".message")).to_contain_text("You now own alpha.")
    expect(member.locator(".page-head")).to_contain_text("you are the owner")

    assert Team.objects.get(name="alpha").owner == bob
    owner.goto(base + "/teams/alpha")
    expect(owner.locator(".page-head")).to_contain_text("you are an admin")
    expect(owner.locator("#activity")).to_contain_text("bob took over the ownership from alice")


def test_the_activity_log_shows_each_kind_of_event(live_server, new_page, make_user, artifacts_dir):
    alice, bob, carol = (make_user(name, password=PASSWORD) for name in ("alice", "bob", "carol"))
    team, other = make_team(alice, "alpha", members=[bob]), make_team(bob, "beta")
    link = lambda code: f"{live_server.url}/v1/invites/{code}"  # noqa: E731
    # Every kind, as the services write them.
    pushed = packet_services.packet_push(actor=bob, packet=packet_v02(goal="Ship the importer"), team=team)
    packet_services.packet_push(actor=bob, packet=packet_v02(id=pushed.pk, goal="Ship the importer"), team=team)
    publishing.packet_publish(actor=alice, packet_id=pushed.pk)
    publishing.packet_unpublish(actor=alice, packet_id=pushed.pk)
    packet_services.packet_move(actor=bob, packet_id=pushed.pk, team=other)
    packet_services.packet_move(actor=bob, packet_id=pushed.pk, team=team)
    services.team_settings_update(actor=alice, team=team, share_outside=True)
    share, _ = shares.share_create(actor=bob, packet_id=pushed.pk, to="carol")
    shares.share_delete(actor=bob, share_id=share.pk)
    leaky = packet_v02(next_step="clone with glpat-Xq7vR2mK9pL4sT8wZ3nB and run the suite")
    packet_services.packet_push(actor=bob, packet=leaky, team=team)
    findings.findings_clear(actor=alice, packet_id=leaky["id"], reason="a revoked test token")
    packet_services.packet_delete(actor=alice, packet_id=pushed.pk)
    invite, code = services.invite_create(actor=alice, team=team, email="carol@example.org", link=link)
    services.invite_resend(actor=alice, team=team, invite_id=invite.pk, link=link)
    _, code = services.invite_create(actor=alice, team=team, label="Carol")
    services.invite_accept(code=code, actor=carol)
    revoked, _ = services.invite_create(actor=bob, team=team, label="Kim")
    services.invite_revoke(actor=alice, team=team, invite_id=revoked.pk)
    services.membership_set_role(actor=alice, team=team, user_id=carol.pk, role="admin")
    services.membership_set_role(actor=alice, team=team, user_id=carol.pk, role="member")
    services.membership_remove(actor=alice, team=team, user_id=carol.pk)
    hook, _ = webhooks.webhook_create(actor=alice, url="http://127.0.0.1:9/hook", events=["packet.created"], team=team)
    webhooks.webhook_update(actor=alice, webhook_id=hook.pk, description="the team's CI")
    with transaction.atomic():  # as the delivery that got the 410 does
        webhook_turn_off(webhook=hook, reason=OFF_GONE)
    webhooks.webhook_delete(actor=alice, webhook_id=hook.pk)
    services.team_transfer_offer(actor=alice, team=team, new_owner_id=bob.pk)
    services.team_transfer_accept(actor=bob, team=team)
    services.team_leave(actor=alice, team=team)
    recorded = set(TeamEvent.objects.filter(team=team).values_list("kind", flat=True))
    assert recorded == {kind for kind, _ in TeamEvent.KINDS}

    page = signed_in_page(new_page, live_server.url, "bob")
    page.goto(live_server.url + "/teams/alpha/activity")
    items = page.locator(".timeline li")
    shown = {items.nth(i).get_attribute("data-kind") for i in range(items.count())}
    assert shown == recorded
    expect(page.locator(".timeline")).to_contain_text("bob pushed packet")
    expect(page.locator(".timeline")).to_contain_text("alice deleted packet")
    page.screenshot(path=str(artifacts_dir / "team-activity.png"), full_page=True)

    page.select_option("#kind", "packet.deleted")
    page.click("#activity-filter button[type=submit]")
    expect(page.locator(".timeline li")).to_have_count(1)
    expect(page.locator(".timeline li")).to_contain_text("alice deleted packet")
