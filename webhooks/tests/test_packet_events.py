"""The packet events, made through /v1 as clients make them: a person's webhook hears their personal
packets, a team's hears the team's; each delivery is thin (id, goal, team, who, link) and never
carries the packet's body; a flagged packet's goal does not leave."""

import pytest

from packets.models import ScanRun
from packets.scan.rescan import scan_run_perform
from packets.services import packet_move, packet_push
from packets.testing import packet_v02
from teams.testing import make_team
from webhooks.models import EVENTS, Delivery
from webhooks.testing import Receiver, make_webhook

PACKET_EVENTS = [name for name in EVENTS if name.startswith(("packet.", "finding."))]
TOKEN = "ghp_Q7vR2mK9pL4sT8wZ3nBxY6cJ1dF5hG0aE2uI"  # made up, in the real format


@pytest.fixture
def told(django_capture_on_commit_callbacks):
    """Call `call` and send what it commits (eager)."""

    def run(call, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            answer = call(*args, **kwargs)
        assert answer.status_code < 300, answer.content
        return answer

    return run


@pytest.mark.django_db
def test_a_persons_packets_as_their_webhook_hears_them(api_as, alice, bob, told, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example"
    api = api_as(alice)
    packet = packet_v02(goal="Make the importer idempotent")
    with Receiver() as receiver:
        _, secret = make_webhook(alice, receiver.url, events=PACKET_EVENTS)
        make_webhook(bob, receiver.url, events=PACKET_EVENTS)  # bob's: hears nothing of alice's
        told(api.post, "/v1/packets", packet)
        told(api.post, "/v1/packets", {**packet, "next_step": "Ship it"})
        told(api.post, f"/v1/packets/{packet['id']}/publish")
        told(api.client.delete, f"/v1/packets/{packet['id']}/publish", **api._headers({}))
        told(api.post, f"/v1/packets/{packet['id']}/shares", {"to": "bob"})
        told(api.delete, f"/v1/packets/{packet['id']}")
        bodies = [call.verified(secret) for call in receiver.wait_for(6)]

    assert [body["type"] for body in bodies] == [
        "packet.created",
        "packet.updated",
        "packet.published",
        "packet.unpublished",
        "packet.shared",
        "packet.deleted",
    ]
    created = bodies[0]["data"]
    assert created == {
        "id": packet["id"],
        "goal": "Make the importer idempotent",
        "team": None,
        "who": {"id": alice.pk, "name": "alice"},
        "link": f"https://hub.example/packets/{packet['id']}",
    }
    assert bodies[-1]["data"]["link"] is None  # gone
    assert packet["next_step"] not in receiver.calls[0].body.decode()  # never the packet's body
    assert Delivery.objects.filter(webhook__owner=bob).count() == 0


@pytest.mark.django_db
def test_a_teams_packets_as_its_webhook_hears_them(api_as, alice, bob, told):
    team = make_team(alice, "alpha", members=[bob])
    with Receiver() as receiver:
        _, secret = make_webhook(alice, receiver.url, events=PACKET_EVENTS, team=team, hub_url="https://hub.test/")
        personal, _ = make_webhook(bob, receiver.url, events=PACKET_EVENTS)
        told(api_as(bob).post, "/v1/packets?team=alpha", packet_v02(goal="Fix the flaky test"))
        told(api_as(bob).post, "/v1/packets", packet_v02(goal="Bob's own"))
        team_call, personal_call = receiver.wait_for(2)

    data = team_call.verified(secret)["data"]
    assert data["team"] == "alpha" and data["who"]["name"] == "bob" and data["goal"] == "Fix the flaky test"
    assert data["link"].startswith("https://hub.test/packets/")  # the hub's address when it was added
    assert personal_call.headers["webhook-id"] == Delivery.objects.get(webhook=personal).pk


@pytest.mark.django_db
def test_a_flagged_packet_is_told_by_its_id_and_its_clearing_too(api_as, alice, told, settings):
    settings.LTM_SECRET_SCAN = "flag"
    api = api_as(alice)
    leaky = packet_v02(goal=f"deploy with {TOKEN}")
    with Receiver() as receiver:
        _, secret = make_webhook(alice, receiver.url, events=PACKET_EVENTS)
        told(api.post, "/v1/packets", leaky)
        told(api.post, f"/v1/packets/{leaky['id']}/findings/clear", {"reason": "a revoked token"})
        flagged, cleared = (call.verified(secret) for call in receiver.wait_for(2))

    assert flagged["type"] == "packet.flagged" and flagged["data"]["goal"] == ""
    assert TOKEN not in receiver.calls[0].body.decode() and TOKEN[4:12] not in receiver.calls[0].body.decode()
    assert cleared["type"] == "finding.cleared" and cleared["data"]["id"] == leaky["id"]


@pytest.mark.django_db
def test_a_rescan_that_flags_a_stored_packet_tells_it(alice, django_capture_on_commit_callbacks, settings):
    """A pattern added after the push: the rescan flags the packet, and its webhook hears
    packet.flagged from the hub itself, without the goal that holds the secret."""
    settings.LTM_SECRET_SCAN = "off"
    leaky = packet_v02(goal=f"deploy with {TOKEN}")
    with Receiver() as receiver:
        _, secret = make_webhook(alice, receiver.url, events=["packet.flagged"])
        with django_capture_on_commit_callbacks(execute=True):
            packet_push(actor=alice, packet=leaky)
        settings.LTM_SECRET_SCAN = "flag"
        with django_capture_on_commit_callbacks(execute=True):
            scan_run_perform(run_id=ScanRun.objects.create().pk)
        [call] = receiver.wait_for(1)

    told = call.verified(secret)
    assert told["type"] == "packet.flagged" and told["data"]["id"] == leaky["id"]
    assert told["data"]["goal"] == "" and told["data"]["who"] is None and TOKEN not in call.body.decode()


@pytest.mark.django_db
def test_a_move_is_a_creation_where_it_arrives_and_a_deletion_where_it_leaves(
    alice, django_capture_on_commit_callbacks
):
    team = make_team(alice, "alpha")
    with Receiver() as receiver:
        _, mine = make_webhook(alice, receiver.url, events=PACKET_EVENTS)
        _, teams = make_webhook(alice, receiver.url, events=PACKET_EVENTS, team=team)
        with django_capture_on_commit_callbacks(execute=True):
            packet = packet_push(actor=alice, packet=packet_v02())
        with django_capture_on_commit_callbacks(execute=True):
            packet_move(actor=alice, packet_id=packet.pk, team=team)
        pushed, *moved = receiver.wait_for(3)

    assert pushed.verified(mine)["type"] == "packet.created"
    left = next(call for call in moved if call.headers["webhook-id"] in set(_ids(alice, team=None)))
    arrived = next(call for call in moved if call is not left)
    assert left.verified(mine)["type"] == "packet.deleted" and left.verified(mine)["data"]["moved"] is True
    assert arrived.verified(teams)["type"] == "packet.created" and arrived.verified(teams)["data"]["team"] == "alpha"


def _ids(owner, team):
    return Delivery.objects.filter(webhook__owner=owner, webhook__team=team).values_list("pk", flat=True)
