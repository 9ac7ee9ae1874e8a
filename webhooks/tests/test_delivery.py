"""Deliveries as a receiver sees them: Standard Webhooks headers its library verifies, retries with
the same webhook-id, two signatures after a rotation, the Slack format."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import WebhookVerificationError

from webhooks import payloads
from webhooks.emit import webhook_event_emit
from webhooks.models import Delivery, Webhook
from webhooks.signals import delivery_attempted
from webhooks.testing import Answer, Receiver, make_webhook, retries_fall_due


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run what waits for the commit (the outbox's queueing, here eager: the send) at once."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return call(*args, **kwargs)

    return run


@pytest.mark.django_db
def test_a_ping_verifies_with_the_standard_webhooks_library(api_as, alice, committed):
    with Receiver() as receiver:
        answer = api_as(alice).post("/v1/webhooks", {"url": receiver.url, "events": ["packet.created"]}).json()
        pinged = committed(api_as(alice).post, f"/v1/webhooks/{answer['id']}/ping")
        [call] = receiver.wait_for(1)

    assert pinged.status_code == 202 and pinged.json()["event"] == "webhook.ping"
    body = call.verified(answer["secret"])
    assert body["type"] == "webhook.ping" and body["data"]["webhook"] == answer["id"]
    assert body["data"]["who"] == {"id": alice.pk, "name": alice.display_name}
    assert call.headers["webhook-id"] == pinged.json()["id"] and call.headers["Content-Type"] == "application/json"
    assert abs(int(call.headers["webhook-timestamp"]) - timezone.now().timestamp()) < 60
    with pytest.raises(WebhookVerificationError):
        call.verified("whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVowMTIzNDU=")
    [delivery] = api_as(alice).get(f"/v1/webhooks/{answer['id']}/deliveries").json()["deliveries"]
    assert delivery["status"] == "delivered" and delivery["attempts"] == 1 and delivery["response_status"] == 200


@pytest.mark.django_db
def test_a_delivery_sent_again_keeps_its_webhook_id_and_body(api_as, alice, committed):
    api = api_as(alice)
    with Receiver() as receiver:
        made = api.post("/v1/webhooks", {"url": receiver.url, "events": ["packet.created"]}).json()
        pinged = committed(api.post, f"/v1/webhooks/{made['id']}/ping").json()
        receiver.wait_for(1)
        again = committed(api.post, f"/v1/webhooks/{made['id']}/deliveries/{pinged['id']}/redeliver")
        first, second = receiver.wait_for(2)

    assert again.status_code == 202 and again.json()["id"] == pinged["id"]
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == pinged["id"]
    assert first.body == second.body and second.verified(made["secret"])["type"] == "webhook.ping"
    [delivery] = api.get(f"/v1/webhooks/{made['id']}/deliveries").json()["deliveries"]
    assert delivery["status"] == "delivered" and delivery["attempts"] == 1
    unknown = api.post(f"/v1/webhooks/{made['id']}/deliveries/msg_unknown/redeliver")
    assert unknown.status_code == 404


@pytest.mark.django_db
def test_a_500_then_a_200_is_retried_with_the_same_webhook_id(alice, committed):
    with Receiver(Answer(500)) as receiver:
        webhook, secret = make_webhook(alice, receiver.url)
        before = timezone.now()
        committed(_emit, webhook)
        receiver.wait_for(1)
        pending = Delivery.objects.get()
        # The spec's first wait: about 5 seconds, with jitter.
        assert pending.status == Delivery.PENDING and pending.response_status == 500 and pending.attempts == 1
        assert timedelta(seconds=4) < pending.next_attempt_at - before < timedelta(seconds=6)

        retries_fall_due()
        first, second = receiver.wait_for(2)

    assert first.headers["webhook-id"] == second.headers["webhook-id"] == pending.pk
    assert first.body == second.body and second.verified(secret)["type"] == "packet.created"
    delivered = Delivery.objects.get()
    assert delivered.status == Delivery.DELIVERED and delivered.attempts == 2 and delivered.next_attempt_at is None
    assert Webhook.objects.get().failing_since is None


@pytest.mark.django_db
def test_after_a_rotation_both_secrets_sign_for_a_day(api_as, alice, committed):
    with Receiver() as receiver:
        made = api_as(alice).post("/v1/webhooks", {"url": receiver.url, "events": ["packet.created"]}).json()
        rotated = api_as(alice).post(f"/v1/webhooks/{made['id']}/rotate").json()
        committed(api_as(alice).post, f"/v1/webhooks/{made['id']}/ping")
        Webhook.objects.update(previous_until=timezone.now() - timedelta(seconds=1))
        committed(api_as(alice).post, f"/v1/webhooks/{made['id']}/ping")
        during, after = receiver.wait_for(2)

    assert len(during.headers["webhook-signature"].split(" ")) == 2
    assert during.verified(made["secret"]) and during.verified(rotated["secret"])
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    assert after.verified(rotated["secret"])
    with pytest.raises(WebhookVerificationError):
        after.verified(made["secret"])


@pytest.mark.django_db
def test_the_slack_format_posts_a_text_signed_the_same_way(alice, bob, committed):
    with Receiver() as receiver:
        webhook, secret = make_webhook(alice, receiver.url, format="slack", hub_url="https://hub.example")
        committed(_emit, webhook, actor=bob, goal="Fix <the> build & ship")
        [call] = receiver.wait_for(1)

    body = call.verified(secret)
    assert set(body) == {"text"}
    assert body["text"] == (
        "bob pushed packet <https://hub.example/packets/01J0PACKET|01J0PACKET>: Fix &lt;the&gt; build &amp; ship"
    )


@pytest.mark.django_db
def test_a_packet_the_scan_holds_leaves_by_its_id_alone(alice, committed):
    with Receiver() as receiver:
        webhook, secret = make_webhook(alice, receiver.url, events=["packet.flagged"])
        committed(
            _emit, webhook, event="packet.flagged", goal="token ghp_x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0", held=True
        )
        [call] = receiver.wait_for(1)

    data = call.verified(secret)["data"]
    assert data["id"] == "01J0PACKET" and data["goal"] == "" and "ghp_" not in call.body.decode()


@pytest.mark.django_db
def test_only_the_webhooks_that_hear_the_event_get_it(alice, bob, committed):
    with Receiver() as receiver:
        hearing, _ = make_webhook(alice, receiver.url, events=["packet.created"])
        make_webhook(alice, receiver.url, events=["packet.deleted"])
        make_webhook(bob, receiver.url, events=["packet.created"])
        off, _ = make_webhook(alice, receiver.url, events=["packet.created"])
        Webhook.objects.filter(pk=off.pk).update(active=False)
        committed(_emit, hearing)
        receiver.wait_for(1)

    assert [delivery.webhook_id for delivery in Delivery.objects.all()] == [hearing.pk]


def _emit(webhook, *, actor=None, event="packet.created", goal="Fix the build", held=False):
    """`event` about a packet in `webhook`'s scope, as packets sends it: inside the change's
    transaction."""

    class Packet:
        pk = "01J0PACKET"
        quarantined = held

    Packet.goal = goal
    data = payloads.packet_data(Packet, team_name=None, actor=actor or webhook.owner)
    with transaction.atomic():
        return webhook_event_emit(event=event, data=data, owner_id=webhook.owner_id, team_id=webhook.team_id)


@pytest.mark.django_db
def test_each_attempt_is_told_to_whoever_counts_them(alice, committed):
    results = []

    def count(*, result, **_signal):
        results.append(result)

    delivery_attempted.connect(count)
    try:
        with Receiver(Answer(500), Answer(200), Answer(410)) as receiver:
            webhook, _ = make_webhook(alice, receiver.url)
            committed(_emit, webhook)
            retries_fall_due()
            committed(_emit, webhook)
            receiver.wait_for(3)
    finally:
        delivery_attempted.disconnect(count)

    assert results == ["retried", "delivered", "gone"]
