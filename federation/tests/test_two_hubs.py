"""A packet shared from the suite's hub (A) with a person on another hub (B), end to end: share,
read it there as the recipient (the Go client's pull), update, withdraw, and the refusals the
sender shows."""

import json
import time
from datetime import timedelta
from urllib.parse import urlsplit

from allauth.account.models import EmailAddress
from django.db.models import F
from django.urls import reverse

from core.testing import signed_in
from federation.delivery import SCHEDULE
from federation.models import Message, RemoteShare
from federation.tasks import messages_sweep
from federation.testing import other_hub
from packets.models import Packet
from packets.testing import packet_v02
from packets.testing.sharing import share

INBOX_OF_B = "/v1/federation/inbox"


def pushed(api, **fields) -> dict:
    packet = packet_v02(**fields)
    response = api.post("/v1/packets", packet)
    assert response.status_code == 201, response.content
    return packet


def shares_out(api) -> dict:
    response = api.get("/v1/shares?direction=out")
    assert response.status_code == 200, response.content
    return {item["id"]: item for item in response.json()["shares"]}


def test_a_share_reaches_the_person_on_the_other_hub_who_reads_updates_and_loses_it(hub_a, hub_b, api_as, alice):
    api = api_as(alice)
    packet = pushed(api, goal="Teach the importer to resume.")
    hub_b.person("bob")

    answer = share(api, packet["id"], f"bob@{hub_b.host}", note="for your importer")
    assert answer.status_code == 202, answer.content
    sent = answer.json()["share"]
    assert sent["to"] == {"address": f"bob@{hub_b.host}"} and sent["state"] == "pending"
    assert shares_out(api)[sent["id"]]["state"] == "delivered", shares_out(api)[sent["id"]]
    shown = signed_in(alice).get(reverse("shares-sent")).content.decode()
    assert f"bob@{hub_b.host}" in shown and "delivered" in shown

    status, read = hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")
    assert status == 200 and read == packet
    status, inbox = hub_b.call("GET", "/v1/shares", as_user="bob")
    [received] = [item for item in inbox["shares"] if item["packet_id"] == packet["id"]]
    assert received["from"]["display"] == f"alice@{hub_a.split('//')[1]}" and received["note"] == "for your importer"
    status, refused = hub_b.call("DELETE", f"/v1/packets/{packet['id']}", as_user="bob")
    assert status == 403, refused

    pushed(api, **{**packet, "goal": "Teach the importer to resume, twice."})
    status, read = hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")
    assert read["goal"] == "Teach the importer to resume, twice."

    assert api.delete(f"/v1/shares/{sent['id']}").status_code == 204
    assert not RemoteShare.objects.exists()
    assert hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")[0] == 404
    assert Message.objects.filter(kind="withdraw", state="delivered").count() == 1


def test_deleting_the_packet_withdraws_it_from_the_other_hub(hub_a, hub_b, api_as, alice):
    api = api_as(alice)
    packet = pushed(api)
    hub_b.person("bob")
    assert share(api, packet["id"], f"bob@{hub_b.host}").status_code == 202
    assert hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")[0] == 200
    assert api.delete(f"/v1/packets/{packet['id']}").status_code == 204
    assert hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")[0] == 404


def test_an_unknown_person_there_fails_the_share_with_no_such_user(hub_a, hub_b, api_as, alice):
    api = api_as(alice)
    packet = pushed(api)
    sent = share(api, packet["id"], f"nobody@{hub_b.host}").json()["share"]
    listed = shares_out(api)[sent["id"]]
    assert (listed["state"], listed["reason"]) == ("failed", "no such user")


def test_a_hub_whose_scan_finds_a_secret_refuses_it_and_the_sender_shows_why(hub_a, hub_b, api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "off"  # A lets it through; B's own scan (flag) does not
    api = api_as(alice)
    packet = pushed(api, next_step="Rotate the key AKIAIOSFODNN7EXAMPLF before Friday.")
    hub_b.person("bob")
    sent = share(api, packet["id"], f"bob@{hub_b.host}").json()["share"]
    listed = shares_out(api)[sent["id"]]
    assert listed["state"] == "failed" and "secret scan found" in listed["reason"], listed
    assert hub_b.call("GET", f"/v1/packets/{packet['id']}", as_user="bob")[0] == 404


def test_federation_off_or_a_blocked_hub_refuses_the_share_naming_the_setting(hub_a, hub_b, api_as, alice, settings):
    api = api_as(alice)
    packet = pushed(api)
    settings.LTM_FEDERATION = "off"
    refused = share(api, packet["id"], f"bob@{hub_b.host}")
    assert refused.status_code == 403 and "LTM_FEDERATION=off" in refused.json()["error"]
    settings.LTM_FEDERATION, settings.LTM_FEDERATION_BLOCK = "open", [hub_b.host]
    refused = share(api, packet["id"], f"bob@{hub_b.host}")
    assert refused.status_code == 403 and "blocked" in refused.json()["error"]
    settings.LTM_FEDERATION, settings.LTM_FEDERATION_BLOCK = "allowlist", []
    refused = share(api, packet["id"], "bob@hub-c.example")
    assert refused.status_code == 403 and "LTM_FEDERATION_PEERS" in refused.json()["error"]
    assert not RemoteShare.objects.exists()


def test_the_packet_goes_as_pushed_with_its_signature(hub_a, hub_b, api_as, alice):
    api = api_as(alice)
    packet = pushed(api)
    hub_b.person("bob")
    share(api, packet["id"], f"bob@{hub_b.host}")
    body = json.loads(Message.objects.get(kind="share").body)
    assert body["packet"] == json.loads(Packet.objects.get(pk=packet["id"]).body)
    assert set(body) == {"type", "id", "from", "to", "note", "packet", "packet_signature"}
    assert body["packet_signature"]["alg"] == "ed25519" and body["to"] == "bob"


def test_an_unreachable_hub_that_comes_back_gets_the_share_after_the_retry(
    hub_a, live_server, hubs_folder, hub_template, api_as, alice, settings
):
    hub_c = other_hub(hubs_folder, hub_template, peers=[urlsplit(live_server.url).netloc])
    settings.LTM_FEDERATION_PEERS = [hub_c.host]
    api = api_as(alice)
    packet = pushed(api)
    sent = share(api, packet["id"], f"bob@{hub_c.host}").json()["share"]
    listed = shares_out(api)[sent["id"]]
    assert listed["state"] == "pending" and "connection was refused" in listed["reason"], listed
    hub_c.start()
    try:
        hub_c.person("bob")
        # Beat's sweep, once the first retry is due (as if its wait had passed).
        Message.objects.update(next_attempt_at=F("next_attempt_at") - timedelta(seconds=SCHEDULE[0]))
        assert messages_sweep() == 1
        assert shares_out(api)[sent["id"]]["state"] == "delivered"
        assert hub_c.call("GET", f"/v1/packets/{packet['id']}", as_user="bob") == (200, packet)
    finally:
        hub_c.stop()


def test_the_other_way_a_hub_without_a_broker_sends_from_a_thread_after_the_commit(
    hub_a, hub_b, api_as, bob, mailoutbox
):
    """Hub B sends; this hub receives, and mails bob as for a share made here."""
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=True, primary=True)
    packet = packet_v02(goal="Shared from hub B to hub A.")
    assert hub_b.call("POST", "/v1/packets", as_user="carol", body=packet)[0] == 201
    status, answer = hub_b.call(
        "POST", f"/v1/packets/{packet['id']}/shares", as_user="carol", body={"to": f"bob@{urlsplit(hub_a).netloc}"}
    )
    assert status == 202 and answer["share"]["state"] == "pending"
    deadline = time.monotonic() + 30
    while (state := _state_on_b(hub_b, answer["share"]["id"])) == "pending" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert state == "delivered"
    pulled = api_as(bob).get(f"/v1/packets/{packet['id']}")
    assert pulled.status_code == 200 and pulled.json() == packet
    [mail] = mailoutbox
    assert (
        mail.to == ["bob@example.org"] and mail.subject == f"carol@{hub_b.host} shared a packet with you on the ltm hub"
    )
    assert f"{hub_a}/packets/{packet['id']}" in mail.body


def _state_on_b(hub_b, share_id: str) -> str:
    listed = hub_b.call("GET", "/v1/shares?direction=out", as_user="carol")[1]["shares"]
    return next(item["state"] for item in listed if item["id"] == share_id)
