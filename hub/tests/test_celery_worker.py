"""The background work runs on a real Celery worker, started as operators start it
(`celery -A hub worker`, production settings), with Redis as the broker and the same database as
the web process: the hourly purge, the mail of an invite by e-mail, and a webhook's delivery with
its retry."""

import uuid
from datetime import timedelta
from email import message_from_bytes

import pytest
from celery.result import EagerResult
from django.conf import settings
from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from hub.testing.celery_worker import celery_worker, needs_services, wait_for
from oauth.tasks import purge_expired_oauth
from oauth.testing import ensure_cli_application
from teams.models import Invite
from teams.services import invite_accept, invite_create
from teams.testing import make_team
from webhooks.models import Delivery
from webhooks.services import webhook_ping
from webhooks.tasks import deliveries_sweep
from webhooks.testing import Answer, Receiver, make_webhook


@pytest.mark.django_db(transaction=True)
def test_purge_runs_on_a_real_worker(alice, monkeypatch):
    needs_services()
    # The test settings run tasks eagerly; this task must go through the broker to the worker.
    monkeypatch.setitem(purge_expired_oauth.app.conf, "task_always_eager", False)
    ensure_cli_application()
    Grant = get_device_grant_model()
    past = timezone.now() - timedelta(minutes=1)
    expired = Grant.objects.create(
        client_id="ltm-cli",
        device_code="expired-code",
        user_code="BCDFGHJK",
        expires=past,
        interval=5,
        scope="read write",
    )
    alive = Grant.objects.create(
        client_id="ltm-cli",
        device_code="alive-code",
        user_code="LMNPQRST",
        expires=timezone.now() + timedelta(minutes=5),
        interval=5,
        scope="read write",
    )

    queue = f"test-{uuid.uuid4().hex}"
    with celery_worker(queue) as worker:
        result = purge_expired_oauth.apply_async(queue=queue)
        # Run in this process (eager mode), the task would purge without any worker at all.
        assert not isinstance(result, EagerResult), "the task ran eagerly, not on the worker"
        wait_for(lambda: not Grant.objects.filter(pk=expired.pk).exists(), worker, "purge the expired grant")
        assert Grant.objects.filter(pk=alive.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_an_invite_mail_is_sent_by_a_realworker(alice, bob, tmp_path, monkeypatch):
    """An e-mail invite made through teams.services is queued after commit, and the worker sends
    the mail with its link; the worker writes mail to files in a folder this test reads."""
    needs_services()
    app = purge_expired_oauth.app
    queue = f"test-{uuid.uuid4().hex}"
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setitem(app.conf, "task_default_queue", queue)  # what .delay() sends goes to our worker
    outbox = tmp_path / "mail"
    outbox.mkdir()
    team = make_team(alice, "alpha")

    with celery_worker(
        queue, EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend", EMAIL_FILE_PATH=str(outbox)
    ) as worker:
        invite, code = invite_create(
            actor=alice, team=team, email="sam@example.org", link=lambda code: f"http://hub.test/v1/invites/{code}"
        )
        wait_for(lambda: any(outbox.iterdir()), worker, "send the invite mail")

    [mail] = [message_from_bytes(path.read_bytes()) for path in outbox.iterdir()]
    assert mail["To"] == "sam@example.org" and "alpha" in mail["Subject"]
    text = next(part for part in mail.walk() if part.get_content_type() == "text/plain").get_payload(decode=True)
    assert f"http://hub.test/v1/invites/{code}" in text.decode()
    assert Invite.objects.get(pk=invite.pk).mailed_at is not None
    # The link in the mail works.
    invite_accept(code=code, actor=bob)
    assert team.memberships.filter(user=bob).exists()


@pytest.mark.django_db(transaction=True)
def test_a_webhook_delivery_is_sent_and_retried_by_a_real_worker(alice, monkeypatch):
    """The change commits, the outbox hands the delivery to Redis, the worker sends it; the
    receiver failing, beat's sweep queues the retry once it falls due, and the worker sends the
    same webhook-id again."""
    needs_services()
    app = purge_expired_oauth.app
    queue = f"test-{uuid.uuid4().hex}"
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setitem(app.conf, "task_default_queue", queue)
    with Receiver(Answer(500)) as receiver:
        webhook, secret = make_webhook(alice, receiver.url)
        # The worker decrypts the webhook's secret with the same key, and may call loopback.
        env = {"SECRET_KEY": settings.SECRET_KEY, "LTM_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
        with celery_worker(queue, **env) as worker:
            delivery = webhook_ping(actor=alice, webhook_id=webhook.pk)
            wait_for(lambda: Delivery.objects.get(pk=delivery.pk).attempts == 1, worker, "try")
            swept = []

            def sweep_until_queued() -> bool:  # what beat runs every few seconds
                swept.append(swept and swept[-1] or deliveries_sweep())
                return swept[-1] == 1

            wait_for(sweep_until_queued, worker, "fall due")
            wait_for(lambda: Delivery.objects.get(pk=delivery.pk).status == Delivery.DELIVERED, worker, "deliver")

    first, second = receiver.calls
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.pk
    assert second.verified(secret)["type"] == "webhook.ping"
    assert Delivery.objects.get(pk=delivery.pk).attempts == 2
