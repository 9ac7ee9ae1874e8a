"""A published packet in a real browser, opened by someone with no account."""

import json

import pytest

from ltm.protocol.resume import render_resume
from packets import services
from packets.publishing import services as publishing
from packets.testing import packet_v02

pytestmark = pytest.mark.browser

CLIPBOARD = ["clipboard-read", "clipboard-write"]


def publish(user, packet: dict) -> str:
    services.packet_push(actor=user, packet=packet)
    return f"/p/{publishing.packet_publish(actor=user, packet_id=packet['id']).public_slug}"


def watch(page) -> dict:
    """Collect what must never happen on a public page: dialogs, CSP violations, page errors."""
    seen = {"dialogs": [], "csp": [], "errors": []}

    def on_dialog(dialog):
        seen["dialogs"].append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on(
        "console",
        lambda message: seen["csp"].append(message.text) if "Content Security Policy" in message.text else None,
    )
    return seen


def clipboard_text(page) -> str:
    """What the copy button put on the system clipboard (the context grants clipboard-read)."""
    return page.evaluate("navigator.clipboard.readText()")


def test_a_signed_out_reader_copies_the_resume_block(live_server, new_page, make_user, artifacts_dir):
    packet = packet_v02()
    packet["attempts"].append(
        {"tried": "Wrote it as a changelog entry", "outcome": "partial", "learned": "Accurate but dull"}
    )
    url = live_server.url + publish(make_user("alice"), packet)

    page = new_page(width=1280, permissions=CLIPBOARD)
    seen = watch(page)
    page.goto(url)
    assert page.context.cookies() == []
    assert page.locator("h1.packet-goal").inner_text() == packet["goal"]
    assert page.locator(".packet-next p").inner_text() == packet["next_step"]

    page.screenshot(path=str(artifacts_dir / "publish-1280.png"), full_page=True)

    page.get_by_role("button", name="Copy resume block").click()
    page.get_by_role("status").filter(has_text="Copied").wait_for()
    assert clipboard_text(page) == render_resume(packet)

    page.get_by_role("button", name="Copy JSON").click()
    page.locator('[data-copy-target="json-text"]', has_text="Copied").wait_for()
    assert json.loads(clipboard_text(page)) == packet

    phone = new_page(width=390, height=844)
    phone.goto(url)
    assert phone.locator("h1.packet-goal").is_visible()
    # Nothing wider than the phone's screen.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot(path=str(artifacts_dir / "publish-390.png"), full_page=True)

    assert seen == {"dialogs": [], "csp": [], "errors": []}


def test_markup_in_a_packet_runs_nothing(live_server, new_page, make_user, artifacts_dir):
    hostile = (
        '<script>window.pwned = "script"; alert("script")</script>'
        "<img src=\"x\" onerror=\"window.pwned = 'img'; alert('img')\">"
    )
    packet = packet_v02(
        goal=hostile,
        next_step=hostile,
        success_criteria=[hostile],
        constraints=[hostile],
        open_questions=[hostile],
        decisions=[{"what": hostile, "why": hostile, "consequences": hostile, "locked": True}],
        methods=[{"name": "safe-name", "when_applicable": hostile, "how": hostile}],
        attempts=[{"tried": hostile, "outcome": "failed", "learned": hostile}],
        project={"name": "<b>x</b>", "ref": hostile},
    )
    page = new_page(width=1280)
    seen = watch(page)
    page.goto(live_server.url + publish(make_user("mallory"), packet))

    assert page.locator("h1.packet-goal").inner_text() == hostile
    assert page.locator(".packet-next p").inner_text() == hostile
    assert page.locator("main img").count() == 0
    assert page.evaluate("window.pwned") is None
    assert seen["dialogs"] == [] and seen["errors"] == []
    page.screenshot(path=str(artifacts_dir / "publish-injection.png"), full_page=True)


def test_a_dead_link_says_so(live_server, page):
    response = page.goto(live_server.url + "/p/AAAAAAAAAAAAAAAAAAAAAAAA")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "This link is no longer valid"
