"""The secret scan in a real browser: a packet pushed with an AWS key id in it shows the warning on
its page (the field and the kind, never the key) and cannot be published; its creator finds it in
the review queue, clears the findings with a reason, the page shows them cleared, and Publish
works again. Then the team's owner makes the team's scan refuse such packets."""

import random
import re
import string

import pytest
from playwright.sync_api import expect

from packets.models import Packet
from packets.testing import push_packet
from teams.testing import make_team

from .testing import PASSWORD, signed_in_page, watch_csp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON = "a key of the staging fixture, revoked last week"


def made_up_aws_key_id() -> str:
    """An access key id in AWS's format, made up on each run (never a real one, nor a vendor's
    documented example, which the scan leaves alone)."""
    return "AKIA" + "".join(random.choices(string.ascii_uppercase + "234567", k=16))


def test_a_flagged_packet_is_cleared_then_published(live_server, new_page, make_user, artifacts_dir):
    base = live_server.url
    alice = make_user("alice", password=PASSWORD)
    team = make_team(alice, "alpha")
    key = made_up_aws_key_id()
    packet = push_packet(alice, team=team, goal="Rotate the deploy keys", next_step=f"export AWS_KEY={key} then deploy")
    assert Packet.objects.get(pk=packet.id).quarantined

    page = signed_in_page(new_page, base, "alice")
    blocked = watch_csp(page)

    # The navigation counts what is held back; the queue lists it.
    page.locator("nav #held-packets").wait_for()
    expect(page.locator("nav #held-packets")).to_contain_text("1")
    page.get_by_role("link", name=re.compile("^Findings")).click()
    row = page.locator("#review-queue li")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Rotate the deploy keys")
    expect(row).to_contain_text("next_step (aws-access-key)")
    expect(row).not_to_contain_text(key)
    page.screenshot(path=str(artifacts_dir / "findings-queue.png"), full_page=True)

    # The warning: the field and the kind, never the key; no way to publish.
    row.get_by_role("link", name="Rotate the deploy keys").click()
    expect(page).to_have_url(f"{base}/packets/{packet.id}#findings")
    card = page.locator("#findings")
    expect(card).to_contain_text("This packet looks like it carries secrets")
    expect(card).to_contain_text("next_step")
    expect(card).to_contain_text("aws-access-key")
    expect(card).to_contain_text("cannot be published or shared")
    expect(card.locator("#fix-commands")).to_have_text(
        f"ltm pull {packet.id} > packet.json\nltm push packet.json -t alpha"
    )
    expect(card).not_to_contain_text(key)
    expect(page.locator(".scope-line .badge.danger")).to_have_text("quarantined")
    expect(page.get_by_role("button", name="Publish", exact=True)).to_be_disabled()
    page.screenshot(path=str(artifacts_dir / "findings-warning.png"), full_page=True)

    # The reason is required: the browser asks for it before anything is sent.
    page.get_by_role("button", name="Clear findings").click()
    assert page.locator("#clear-reason").evaluate("field => field.validity.valueMissing")
    assert Packet.objects.get(pk=packet.id).quarantined

    page.fill("#clear-reason", REASON)
    page.get_by_role("button", name="Clear findings").click()
    expect(page.locator(".message")).to_contain_text("Findings cleared")
    cleared = page.locator("#findings.scan-cleared")
    expect(cleared).to_contain_text("you cleared it")
    expect(cleared).to_contain_text(REASON)
    expect(cleared).to_contain_text("aws-access-key")
    expect(page.locator("nav #held-packets")).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "findings-cleared.png"), full_page=True)

    # Publishing works now, and the public page opens.
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".message")).to_contain_text("Published.")
    public_url = page.locator("#public-url").input_value()
    reader = new_page()
    blocked += watch_csp(reader)
    assert reader.goto(public_url).status == 200
    expect(reader.locator("h1.packet-goal")).to_have_text("Rotate the deploy keys")

    # The team's log keeps who cleared the findings and why.
    page.goto(f"{base}/teams/alpha/activity")
    expect(page.locator("main")).to_contain_text(f"cleared the secret-scan findings of packet {packet.id}")
    expect(page.locator("main")).to_contain_text(f"(Rotate the deploy keys): {REASON}")

    # The owner makes the team's scan stricter than the hub's: such a push is refused from now on.
    page.goto(f"{base}/teams/alpha")
    setting = page.locator("#secret-scan")
    expect(setting.locator("#secret-scan-state")).to_have_text("flag")
    setting.locator("input[name=secret_scan][value=refuse]").check()
    setting.screenshot(path=str(artifacts_dir / "findings-team-setting.png"))
    setting.get_by_role("button", name="Save").click()
    expect(page.locator(".message")).to_contain_text("alpha's secret scan is now refuse")
    expect(page.locator("#secret-scan-state")).to_have_text("refuse")
    assert blocked == []
