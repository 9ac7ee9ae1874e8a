"""Sharing a packet with a person in a real browser: Alice shares from the packet's page with a
note, Bob sees the count in the navigation, opens the packet from Shared with me (the count goes),
Alice withdraws it on Shared by me, and Bob's next load of the packet is a 404."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from playwright.sync_api import expect

from packets.models import Share
from packets.testing import push_packet

from .testing import PASSWORD, confirm_in_dialog, signed_in_page, watch_csp

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NOTE = "Start with the retry loop in import.py"


def test_a_packet_is_shared_read_and_withdrawn(live_server, new_page, make_user, artifacts_dir):
    base = live_server.url
    alice, bob = make_user("alice", password=PASSWORD), make_user("bob", password=PASSWORD)
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    packet = push_packet(alice, goal="Make the importer idempotent")
    packet_url = f"{base}/packets/{packet.id}"

    sender = signed_in_page(new_page, base, "alice")
    blocked = watch_csp(sender)
    sender.goto(packet_url)
    sender.get_by_text("Share with a person").click()
    sender.fill("#share-to", "bob")
    sender.fill("#share-note", NOTE)
    sender.screenshot(path=str(artifacts_dir / "share-form.png"), full_page=True)
    sender.get_by_role("button", name="Share", exact=True).click()
    expect(sender.locator(".message")).to_contain_text("Shared with bob.")
    [sent] = mail.outbox
    assert sent.to == ["bob@example.org"] and NOTE in sent.body and f"{packet_url}\n" in sent.body

    recipient = signed_in_page(new_page, base, "bob")
    blocked += watch_csp(recipient)
    count = recipient.locator("nav #unseen-shares")
    expect(count).to_contain_text("1")
    recipient.get_by_role("link", name=re.compile("^Shared with me")).click()
    row = recipient.locator("#shares tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Make the importer idempotent")
    expect(row).to_contain_text("alice")
    expect(row).to_contain_text(NOTE)
    expect(row).to_contain_text("new")
    recipient.screenshot(path=str(artifacts_dir / "share-inbox.png"), full_page=True)

    row.get_by_role("link", name="Make the importer idempotent").click()
    expect(recipient).to_have_url(packet_url)
    expect(recipient.locator("#shared-with-you")).to_contain_text("alice shared this packet with you")
    expect(recipient.locator("#shared-with-you")).to_contain_text(NOTE)
    expect(recipient.locator("h1.packet-goal")).to_have_text("Make the importer idempotent")
    expect(recipient.locator("#share")).to_have_count(0)  # a recipient reads, never shares on
    expect(count).to_have_count(0)
    recipient.screenshot(path=str(artifacts_dir / "share-read.png"), full_page=True)

    sender.goto(base + "/shared/by-me")
    sent_row = sender.locator("#shares tbody tr")
    expect(sent_row).to_contain_text("bob")
    expect(sent_row).to_contain_text("opened")
    sent_row.get_by_role("button", name="Withdraw").click()
    confirm_in_dialog(sender, screenshot=artifacts_dir / "share-withdraw.png")
    expect(sender.locator(".message")).to_contain_text("Share withdrawn")
    assert not Share.objects.exists()

    response = recipient.reload()
    assert response.status == 404
    assert blocked == []
