"""The dashboard's Webhooks pages: a person's and a team's, each webhook's page and its actions."""

import pytest
from django.contrib.messages import get_messages
from django.contrib.sessions.models import Session

from core.testing import signed_in
from teams.testing import make_team
from webhooks.models import Delivery, Webhook
from webhooks.signing import secret_open
from webhooks.testing import Receiver, make_webhook

HOOK = "http://127.0.0.1:9/hook"


@pytest.mark.django_db
def test_adding_shows_the_secret_on_the_answer_only(alice):
    browser = signed_in(alice)
    assert 'href="/webhooks"' in browser.get("/account").content.decode()

    answer = browser.post(
        "/webhooks", {"url": HOOK, "events": ["packet.created", "packet.deleted"], "format": "standard"}
    )

    assert answer.status_code == 200 and answer["Cache-Control"].startswith("max-age=0")
    webhook = Webhook.objects.get()
    secret = secret_open(webhook.secret)
    assert secret in answer.content.decode() and webhook.owner == alice and webhook.hub_url == "http://testserver"
    assert not list(get_messages(answer.wsgi_request))
    again = browser.get("/webhooks").content.decode()
    assert secret not in again and HOOK in again
    for session in Session.objects.all():  # nor kept where a reader of the session table finds it
        assert secret not in session.session_data + repr(session.get_decoded())


@pytest.mark.django_db
def test_a_refused_url_is_said_on_the_form(alice):
    answer = signed_in(alice).post(
        "/webhooks", {"url": "http://10.0.0.1/x", "events": ["packet.created"], "format": "standard"}
    )

    assert answer.status_code == 400 and "private address" in answer.content.decode()
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_a_teams_page_is_its_owners_and_admins(alice, bob, carol):
    team = make_team(alice, "alpha", members=[bob])
    make_webhook(alice, HOOK, team=team)

    assert 'id="team-webhooks"' in signed_in(alice).get("/teams/alpha").content.decode()
    assert 'id="team-webhooks"' not in signed_in(bob).get("/teams/alpha").content.decode()
    assert HOOK in signed_in(alice).get("/teams/alpha/webhooks").content.decode()
    assert signed_in(bob).get("/teams/alpha/webhooks").status_code == 403
    assert signed_in(carol).get("/teams/alpha/webhooks").status_code == 404
    added = signed_in(alice).post(
        "/teams/alpha/webhooks", {"url": HOOK, "events": ["member.joined"], "format": "slack"}
    )
    assert added.status_code == 200 and Webhook.objects.filter(team=team, format="slack").exists()


@pytest.mark.django_db
def test_a_webhooks_page_pings_turns_off_and_on_rotates_replays_and_removes(
    alice, bob, django_capture_on_commit_callbacks
):
    browser = signed_in(alice)
    with Receiver() as receiver:
        webhook, first_secret = make_webhook(alice, receiver.url)
        page = f"/webhooks/{webhook.pk}"
        assert signed_in(bob).get(page).status_code == 404
        with django_capture_on_commit_callbacks(execute=True):
            assert browser.post(f"{page}/ping").status_code == 302
        receiver.wait_for(1)
        delivery = Delivery.objects.get()
        assert delivery.id in browser.get(page).content.decode()
        with django_capture_on_commit_callbacks(execute=True):
            browser.post(f"{page}/deliveries/{delivery.pk}/redeliver")
        first, second = receiver.wait_for(2)

    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.pk
    browser.post(f"{page}/active", {"active": "off"})
    assert Webhook.objects.get().active is False and 'id="turn-on"' in browser.get(page).content.decode()
    browser.post(f"{page}/active", {"active": "on"})
    assert Webhook.objects.get().active is True
    rotated = browser.post(f"{page}/rotate")
    new_secret = secret_open(Webhook.objects.get().secret)
    assert new_secret != first_secret and new_secret in rotated.content.decode()
    asked = browser.post(f"{page}/delete")
    assert asked.status_code == 200 and Webhook.objects.exists()  # the question first
    removed = browser.post(f"{page}/delete", {"confirmed": "yes"})
    assert removed.status_code == 302 and removed["Location"] == "/webhooks" and not Webhook.objects.exists()
