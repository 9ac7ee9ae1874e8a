"""The embedded default (no broker, LTM_WEBHOOK_SENDER=web): the request that makes an event answers
without waiting for the receiver, and a thread of the web process delivers, retries included."""

import time

import pytest

from webhooks import sender
from webhooks.models import Delivery
from webhooks.testing import Answer, Receiver, make_webhook


@pytest.fixture
def web_sender(settings):
    settings.LTM_WEBHOOK_SENDER = "web"
    yield
    sender.stop()


@pytest.mark.django_db(transaction=True)
def test_the_web_process_delivers_after_answering(api_as, alice, web_sender):
    with Receiver(Answer(500, delay=1.5), Answer(200)) as receiver:
        webhook, secret = make_webhook(alice, receiver.url)
        api = api_as(alice)

        started = time.monotonic()
        answer = api.post(f"/v1/webhooks/{webhook.pk}/ping")
        answered_in = time.monotonic() - started
        # The first attempt gets a 500 after 1.5 s; the thread tries again about 5 s later.
        first, second = receiver.wait_for(2, seconds=20)

    assert answer.status_code == 202 and answered_in < 1.5
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == answer.json()["id"]
    assert second.verified(secret)["type"] == "webhook.ping"
    deadline = time.monotonic() + 5
    while Delivery.objects.get().status != Delivery.DELIVERED and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Delivery.objects.get().attempts == 2 and Delivery.objects.get().status == Delivery.DELIVERED
