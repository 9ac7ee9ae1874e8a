"""Federation on this hub alone: sharing with someone on another hub from a packet's page, Shared
by me showing them and their state, the operator's admin page of peers (where a hub is blocked),
a withdraw when the sender loses the right, and a hostile body."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from core.testing import signed_in
from federation import peers
from federation.models import Message, Peer, RemoteShare
from packets.testing import push_packet
from packets.testing.sharing import allow_sharing_outside, share, team_settings
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_the_share_form_takes_an_address_on_another_hub_and_shared_by_me_shows_it_pending(alice, settings):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "https://hub-a.example"
    packet = push_packet(alice)
    page = signed_in(alice).post(reverse("packet-share", args=[packet.pk]), {"to": "bob@hub-b.example"}, follow=True)
    said = [str(message) for message in page.context["messages"]]
    assert said == ["Sending it to bob@hub-b.example: Shared by me shows when their hub has taken it."]
    assert RemoteShare.objects.get().address == "bob@hub-b.example"
    shown = signed_in(alice).get(reverse("shares-sent")).content.decode()
    assert "bob@hub-b.example" in shown and "pending" in shown


def test_operators_see_peers_with_their_counts_and_block_one(admin_client, settings):
    Peer.objects.create(host="hub-b.example", sent=3, failed=1, last_error="no such user")
    listing = admin_client.get(reverse("admin:federation_peer_changelist")).content.decode()
    assert "hub-b.example" in listing and "no such user" in listing
    blocked = admin_client.post(
        reverse("admin:federation_peer_changelist"),
        {"action": "block", "_selected_action": [Peer.objects.get().pk]},
    )
    assert blocked.status_code == 302 and Peer.objects.get().blocked
    settings.LTM_FEDERATION = "open"
    assert peers.refusal("hub-b.example") == "the hub hub-b.example is blocked on this hub"


def test_a_sender_who_may_no_longer_share_the_packet_withdraws_it_from_the_other_hub(alice, dave, api_as, settings):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "https://hub-a.example"
    team = make_team(alice, "alpha", members=[dave])
    allow_sharing_outside(api_as(alice), "alpha")
    packet = push_packet(dave, team=team)
    assert share(api_as(dave), packet.pk, "bob@hub-b.example").status_code == 202
    team_settings(api_as(alice), "alpha", {"share_outside": False})
    assert not RemoteShare.objects.exists()
    withdraw = Message.objects.get(kind="withdraw")
    assert json.loads(withdraw.body) == {
        "type": "withdraw",
        "id": withdraw.pk,
        "from": "dave@hub-a.example",
        "to": "bob",
        "note": "",
        "packet_id": packet.pk,
    }


def test_a_message_with_a_nul_is_a_400_not_a_500(settings, db):
    settings.LTM_FEDERATION, settings.LTM_EXTERNAL_URL = "open", "https://hub-a.example"
    answer = Client().post(
        "/v1/federation/inbox", data=b'{"type": "share", "to": "\\u0000"}', content_type="application/json"
    )
    assert answer.status_code == 400 and "NUL" in answer.json()["error"]
