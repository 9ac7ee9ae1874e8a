"""The suite's hub (A) receiving messages signed as hub B signs them (B, a real process, publishes
the key): what it takes, and each refusal with the reason the sender shows."""

import json
import re
from datetime import UTC, datetime, timedelta

from django.test import Client
from django.urls import reverse

from core.testing import signed_in
from federation import keys
from federation.models import Peer, Received
from federation.testing import share_message, signed_message
from packets.models import Packet
from packets.testing import packet_v02, push_packet

INBOX = "/v1/federation/inbox"


def test_a_signed_share_is_stored_read_only_for_the_recipient_who_reads_it_everywhere(send, hub_b, bob, api_as):
    message = share_message(hub_b)
    answer = send(message)
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"id": message["id"], "type": "share"}
    api = api_as(bob)
    pulled = api.get(f"/v1/packets/{message['packet']['id']}")
    assert pulled.status_code == 200 and pulled.json() == message["packet"]
    inbox = api.get("/v1/shares").json()["shares"]
    assert [(item["from"]["display"], item["note"]) for item in inbox] == [(f"carol@{hub_b.host}", "from B")]
    assert api.delete(f"/v1/packets/{message['packet']['id']}").status_code == 403
    received = Received.objects.get()
    assert (received.host, received.kid) == (hub_b.host, message["packet_signature"]["kid"])
    assert Peer.objects.get(host=hub_b.host).received == 1
    page = signed_in(bob).get(reverse("packet-detail", args=[message["packet"]["id"]]))
    assert f"from {hub_b.host}, verified" in page.content.decode()


def test_update_replaces_it_and_withdraw_takes_it_away(send, hub_b, bob, api_as):
    message = share_message(hub_b)
    assert send(message).status_code == 200
    changed = {**message["packet"], "goal": "Changed on B."}
    update = {**share_message(hub_b, packet=changed), "type": "update", "id": "msg-update"}
    assert send(update).status_code == 200
    assert api_as(bob).get(f"/v1/packets/{changed['id']}").json()["goal"] == "Changed on B."
    withdraw = {
        "type": "withdraw",
        "id": "msg-withdraw",
        "from": message["from"],
        "to": "bob",
        "packet_id": changed["id"],
    }
    assert send(withdraw).status_code == 200
    assert api_as(bob).get(f"/v1/packets/{changed['id']}").status_code == 404
    assert not Packet.objects.filter(pk=changed["id"]).exists() and not Received.objects.exists()


def refused(answer, status: int, said: str) -> None:
    assert answer.status_code == status, answer.content
    assert said in answer.json()["error"], answer.json()


def test_a_forged_signature_is_refused(hub_a, hub_b, bob):
    """B's key id on a signature made with another key."""
    message = share_message(hub_b)
    body, headers = signed_message(message, url=hub_a + INBOX, key_pem=keys.new_key_pem())
    kid_of_b = keys.key_pair(hub_b.key_pem)[0]
    headers["Signature-Input"] = re.sub(r'keyid="[^"]+"', f'keyid="{kid_of_b}"', headers["Signature-Input"])
    answer = Client().post(INBOX, data=body, content_type="application/json", headers=headers)
    refused(answer, 401, "the signature does not verify")
    assert not Packet.objects.filter(pk=message["packet"]["id"]).exists()


def test_a_stale_created_is_refused(send, hub_b, bob):
    answer = send(share_message(hub_b), created=datetime.now(UTC) - timedelta(minutes=6))
    refused(answer, 401, "age exceeds maximum")


def test_a_replayed_message_is_refused(send, hub_b, bob):
    message = share_message(hub_b)
    assert send(message).status_code == 200
    refused(send(message), 409, "received already (a replay)")


def test_a_wrong_digest_is_refused(send, hub_b, bob):
    message = share_message(hub_b)
    tampered = json.dumps({**message, "to": "bob", "note": "changed"}).encode()
    refused(send(message, body=tampered), 401, "Content-Digest does not match")


def test_a_key_that_is_not_the_senders_is_refused(send, hub_b, bob, settings):
    # Signed with A's own key, as if from B: B does not publish it.
    refused(send(share_message(hub_b), key_pem=settings.LTM_HUB_KEY), 401, f"is not one that {hub_b.host} publishes")


def test_a_packet_whose_signature_does_not_match_is_refused(send, hub_b, bob):
    message = share_message(hub_b)
    message["packet_signature"] = share_message(hub_b, packet=packet_v02())["packet_signature"]
    refused(send(message), 422, "the packet's signature does not match it")
    other_key = share_message(hub_b, signed_by=keys.new_key_pem())
    refused(send(other_key), 422, "the packet's signature does not match it")


def test_an_unknown_user_is_no_such_user(send, hub_b, bob):
    refused(send(share_message(hub_b, to="nobody")), 404, "no such user")


def test_a_blocked_hub_or_federation_off_is_refused_naming_it(send, hub_b, bob, settings):
    settings.LTM_FEDERATION, settings.LTM_FEDERATION_BLOCK = "open", [hub_b.host]
    refused(send(share_message(hub_b)), 403, f"the hub {hub_b.host} is blocked")
    settings.LTM_FEDERATION_BLOCK = []
    Peer.objects.update_or_create(host=hub_b.host, defaults={"blocked": True})  # the admin page's block
    refused(send(share_message(hub_b)), 403, f"the hub {hub_b.host} is blocked")
    settings.LTM_FEDERATION = "off"
    refused(send(share_message(hub_b)), 403, "LTM_FEDERATION=off")


def test_a_hub_not_among_the_peers_is_refused(send, hub_b, bob, settings):
    settings.LTM_FEDERATION_PEERS = ["hub-c.example"]
    refused(send(share_message(hub_b)), 403, "not among this hub's peers")


def test_this_hubs_policy_refuses_a_packet_with_a_secret(send, hub_b, bob, settings):
    settings.LTM_SECRET_SCAN = "refuse"
    packet = packet_v02(next_step="Rotate AKIAIOSFODNN7EXAMPLF today.")
    answer = send(share_message(hub_b, packet=packet))
    refused(answer, 422, "secrets")
    assert answer.json()["findings"] and not Packet.objects.filter(pk=packet["id"]).exists()


def test_an_id_held_here_by_another_packet_is_a_conflict(send, hub_b, bob, alice):
    mine = push_packet(alice)
    packet = {**packet_v02(), "id": mine.pk}
    refused(send(share_message(hub_b, packet=packet)), 409, f"packet id {mine.pk} is already held")
    assert Packet.objects.get(pk=mine.pk).owner == alice


def test_bad_shapes_are_400(send, hub_b, bob):
    refused(send({"type": "nonsense", "id": "x", "from": f"a@{hub_b.host}", "to": "bob"}), 400, "type is share")
    refused(send({**share_message(hub_b), "packet": "text"}), 400, "packet and packet_signature are required")
