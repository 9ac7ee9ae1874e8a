"""Deliveries that fail: 410 turns the webhook off, 429 and 503 wait for Retry-After, timeouts and
redirects are failures, an address the guard refuses at send time is never called, a webhook
failing for three days is turned off, at most ten attempts, at most ten a second."""

import socket
from datetime import timedelta
from email.utils import format_datetime

import pytest
from django.utils import timezone

from teams.models import TeamEvent
from teams.testing import make_team
from webhooks.delivery import PER_SECOND, RESPONSE_BYTES, SCHEDULE, delivery_attempt
from webhooks.models import OFF_FAILING, OFF_GONE, Delivery, Webhook
from webhooks.services import webhook_ping
from webhooks.tasks import deliveries_prune_task
from webhooks.testing import Answer, Receiver, make_webhook, retries_fall_due


@pytest.fixture
def ping(django_capture_on_commit_callbacks):
    """A ping of the webhook, sent once it commits (eager, as the tests run Celery)."""

    def run(webhook):
        with django_capture_on_commit_callbacks(execute=True):
            webhook_ping(actor=webhook.created_by, webhook_id=webhook.pk)
        return Delivery.objects.filter(webhook=webhook).first()

    return run


@pytest.mark.django_db
def test_410_turns_the_webhook_off_tells_the_team_and_mails_the_owner(api_as, alice, ping, mailoutbox):
    alice.email = "alice@example.org"
    alice.save()
    team = make_team(alice, "alpha")
    with Receiver(Answer(410)) as receiver:
        webhook, _ = make_webhook(alice, receiver.url, team=team)
        delivery = ping(webhook)

    assert delivery.status == Delivery.FAILED and delivery.response_status == 410
    assert api_as(alice).get(f"/v1/webhooks/{webhook.pk}").json()["active"] is False
    assert Webhook.objects.get().off_reason == OFF_GONE
    line = TeamEvent.objects.get(team=team, kind=TeamEvent.WEBHOOK_TURNED_OFF)
    assert line.actor is None and "410" in line.summary
    [mail] = mailoutbox
    assert mail.to == ["alice@example.org"] and "410 Gone" in mail.body and webhook.pk in mail.body
    assert receiver.url not in mail.body  # its URL may carry a credential


@pytest.mark.django_db
@pytest.mark.parametrize("status", [429, 503])
def test_429_and_503_wait_for_retry_after(alice, ping, status):
    when = timezone.now() + timedelta(minutes=10)
    with Receiver(Answer(status, {"Retry-After": "120"}), Answer(status, {"Retry-After": format_datetime(when)})) as r:
        webhook, _ = make_webhook(alice, r.url)
        first = ping(webhook)
        assert timedelta(seconds=115) < first.next_attempt_at - timezone.now() <= timedelta(seconds=120)
        retries_fall_due()

    second = Delivery.objects.get()
    assert second.status == Delivery.PENDING and second.attempts == 2
    assert abs(second.next_attempt_at - when) < timedelta(seconds=2)


@pytest.mark.django_db
def test_a_receiver_that_does_not_answer_in_time_is_a_failed_attempt(alice, ping, settings):
    settings.LTM_WEBHOOK_TIMEOUT = 0.5
    with Receiver(Answer(200, delay=2)) as receiver:
        webhook, _ = make_webhook(alice, receiver.url)
        delivery = ping(webhook)

    assert delivery.status == Delivery.PENDING and delivery.response_status is None
    assert delivery.error == "no answer within 0.5 s"
    assert Webhook.objects.get().failing_since is not None


@pytest.mark.django_db
def test_a_redirect_is_not_followed_and_the_answer_is_kept_to_4_kb(alice, ping):
    with Receiver(Answer(302, {"Location": "http://127.0.0.1:9/elsewhere"}, body=b"x" * 10_000)) as receiver:
        webhook, _ = make_webhook(alice, receiver.url)
        delivery = ping(webhook)
        calls = receiver.wait_for(1)

    assert len(calls) == 1
    assert delivery.status == Delivery.PENDING and delivery.response_status == 302 and delivery.error == ""
    assert len(delivery.response_body) == RESPONSE_BYTES


@pytest.mark.django_db
def test_a_name_that_resolves_to_loopback_later_is_refused_at_send_time(alice, ping, settings, monkeypatch):
    """Public when the webhook was added, 127.0.0.1 when it is called (a DNS change, or a rebinding
    attack): the guard resolves again at send time and calls nothing."""
    resolves_to = ["93.184.216.34"]
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "hooks.example.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (resolves_to[0], port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    settings.LTM_WEBHOOK_ALLOW_HOSTS = []
    with Receiver() as receiver:
        port = receiver.server.server_address[1]
        webhook, _ = make_webhook(alice, f"http://hooks.example.test:{port}/hook")
        resolves_to[0] = "127.0.0.1"
        delivery = ping(webhook)

    assert receiver.calls == []
    assert delivery.status == Delivery.PENDING and delivery.attempts == 1
    assert "127.0.0.1" in delivery.error and "loopback" in delivery.error


@pytest.mark.django_db
def test_a_name_that_resolves_to_loopback_is_refused_when_loopback_is_not_allowed(api_as, alice, settings):
    settings.LTM_WEBHOOK_ALLOW_HOSTS = []

    for url in ("http://localhost:8000/hook", "http://[::ffff:127.0.0.1]:8000/hook", "http://127.0.0.1:8000/"):
        answer = api_as(alice).post("/v1/webhooks", {"url": url, "events": ["packet.created"]})
        assert answer.status_code == 400 and "loopback address" in answer.json()["error"], url


@pytest.mark.django_db
def test_a_webhook_failing_every_call_for_three_days_is_turned_off(alice, ping, mailoutbox):
    alice.email = "alice@example.org"
    alice.save()
    with Receiver(Answer(500)) as receiver:
        webhook, _ = make_webhook(alice, receiver.url)
        Webhook.objects.update(failing_since=timezone.now() - timedelta(days=3, minutes=1))
        delivery = ping(webhook)

    stored = Webhook.objects.get()
    assert stored.active is False and stored.off_reason == OFF_FAILING
    assert delivery.status == Delivery.FAILED
    assert "every call failed for 3 days" in mailoutbox[0].body


@pytest.mark.django_db
def test_a_delivery_is_given_up_after_ten_attempts(alice, ping):
    with Receiver(*[Answer(500)] * 20) as receiver:
        webhook, _ = make_webhook(alice, receiver.url)
        ping(webhook)
        for _ in SCHEDULE:
            retries_fall_due()
        calls = receiver.wait_for(len(SCHEDULE) + 1)
        assert retries_fall_due() == 0

    assert len(calls) == len(SCHEDULE) + 1 == 10
    assert len({call.headers["webhook-id"] for call in calls}) == 1
    given_up = Delivery.objects.get()
    assert given_up.status == Delivery.FAILED and given_up.attempts == 10 and given_up.next_attempt_at is None


@pytest.mark.django_db
def test_more_than_ten_a_second_wait_their_turn(alice, ping):
    with Receiver() as receiver:
        webhook, _ = make_webhook(alice, receiver.url)
        delivery = ping(webhook)
        now = timezone.now()
        Delivery.objects.filter(pk=delivery.pk).update(last_attempt_at=now)
        for n in range(PER_SECOND - 1):
            Delivery.objects.create(
                id=f"msg_{n}", webhook=webhook, event="webhook.ping", body="{}", last_attempt_at=now
            )
        waiting = Delivery.objects.create(id="msg_waiting", webhook=webhook, event="webhook.ping", body="{}")

        attempted = delivery_attempt(delivery_id=waiting.pk, turn=0)

    assert attempted.status == Delivery.PENDING and 1 <= attempted.retry_in <= 2
    waiting.refresh_from_db()
    assert waiting.attempts == 0 and waiting.status == Delivery.PENDING and waiting.turn == 1
    assert len(receiver.calls) == 1  # the ping only


@pytest.mark.django_db
def test_the_delivery_log_keeps_thirty_days(alice, settings):
    webhook, _ = make_webhook(alice, "http://127.0.0.1:9/hook")
    now = timezone.now()
    for name, age in (("msg_old", timedelta(days=30, minutes=1)), ("msg_recent", timedelta(days=29, hours=23))):
        Delivery.objects.create(id=name, webhook=webhook, event="webhook.ping", body="{}", created_at=now - age)

    assert deliveries_prune_task() == 1
    assert list(Delivery.objects.values_list("pk", flat=True)) == ["msg_recent"]
    # beat runs the pruning daily, and the sweep that sends the retries as they fall due
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"webhooks.tasks.deliveries_prune", "webhooks.tasks.deliveries_sweep"} <= tasks
