"""What a share gives its recipient on every reading path, and what stays refused to them; a team
packet's shares in the team's log; the limit on shares per sender."""

import json
import re

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import HubError
from core.testing import signed_in
from packets.models import Packet, Share
from packets.sharing import services
from packets.testing import push_packet
from packets.testing.sharing import allow_sharing_outside, exported_ids, share
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _people(alice, bob, carol):
    """alice shares; bob and carol are there to share with."""


def test_the_recipient_pulls_the_exact_bytes_pushed(sender, recipient, packet, shared):
    pulled = recipient.get(f"/v1/packets/{packet.id}")
    assert pulled.status_code == 200
    assert pulled["Content-Type"].startswith("application/json")
    assert pulled.content == packet.body.encode() == sender.get(f"/v1/packets/{packet.id}").content


def test_the_recipient_reads_the_thread_as_far_as_shared(sender, recipient, alice):
    root = push_packet(alice, goal="root")
    child = push_packet(alice, goal="child", parent_id=root.id)
    share(sender, child.id, "bob")
    thread = recipient.get(f"/v1/packets/{child.id}/thread")
    assert thread.status_code == 200
    assert [item["id"] for item in thread.json()["packets"]] == [child.id]  # the root was not shared
    assert recipient.get(f"/v1/packets/{root.id}/thread").status_code == 404
    share(sender, root.id, "bob")
    assert [item["id"] for item in recipient.get(f"/v1/packets/{child.id}/thread").json()["packets"]] == [
        root.id,
        child.id,
    ]


def test_search_finds_a_shared_packet_and_says_who_shared_it(sender, recipient, alice, bob):
    theirs = push_packet(alice, goal="Tune the zeppelin importer")
    own = push_packet(bob, goal="Measure the zeppelin hangar")
    assert {hit["id"] for hit in recipient.get("/v1/search?q=zeppelin").json()["results"]} == {own.id}
    share(sender, theirs.id, "bob")
    results = recipient.get("/v1/search?q=zeppelin").json()["results"]
    assert {hit["id"]: hit["shared_by"] for hit in results} == {theirs.id: "Alice Archer", own.id: None}
    assert [hit["shared_by"] for hit in sender.get("/v1/search?q=zeppelin").json()["results"]] == [None]


def test_the_export_holds_a_shared_packet(sender, recipient, packet, bob):
    own = push_packet(bob)
    assert set(exported_ids(recipient.get("/v1/export"))) == {own.id}
    share(sender, packet.id, "bob")
    assert set(exported_ids(recipient.get("/v1/export"))) == {own.id, packet.id}
    exported = b"".join(recipient.get("/v1/export").streaming_content).splitlines()
    assert json.loads(next(line for line in exported if packet.id.encode() in line)) == json.loads(packet.body)


def test_the_list_stays_the_callers_own(sender, recipient, packet, shared, bob):
    own = push_packet(bob)
    assert [item["id"] for item in recipient.get("/v1/packets").json()["packets"]] == [own.id]
    assert [item["id"] for item in recipient.get("/v1/packets?limit=500").json()["packets"]] == [own.id]


# The recipient reads it, and changes nothing.


def test_the_recipient_may_not_re_push_it(recipient, packet, shared):
    again = dict(json.loads(packet.body), goal="Taken over")
    response = recipient.post("/v1/packets", again)
    assert response.status_code == 403
    assert "shared with you" in response.json()["error"]
    assert Packet.objects.get(pk=packet.id).goal == "Make the importer idempotent"


def test_the_recipient_may_not_delete_publish_or_unpublish_it(sender, recipient, packet, shared):
    for method, path in (
        ("delete", f"/v1/packets/{packet.id}"),
        ("post", f"/v1/packets/{packet.id}/publish"),
        ("delete", f"/v1/packets/{packet.id}/publish"),
    ):
        if method == "delete" and path.endswith("/publish"):
            assert sender.post(f"/v1/packets/{packet.id}/publish").status_code == 200  # something to take down
        response = getattr(recipient, method)(path)
        assert response.status_code == 403, path
        assert response.json()["error"].startswith("only the packet's creator"), path
    stored = Packet.objects.get(pk=packet.id)
    assert stored.public_slug  # published by alice, left so
    assert stored.owner_id == packet.owner_id


def test_the_recipient_may_not_move_it(recipient, packet, shared, bob):
    make_team(bob, "bobs")
    response = signed_in(bob).post(f"/packets/{packet.id}/move", {"to": "team:bobs"})
    assert response.status_code == 302
    refusals = [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "error"]
    assert refusals == ["only the packet's creator can move it"]
    assert Packet.objects.get(pk=packet.id).team_id is None


def test_the_recipient_may_not_share_it_on(recipient, packet, shared):
    response = share(recipient, packet.id, "carol")
    assert response.status_code == 403
    assert "creator" in response.json()["error"]
    assert list(Share.objects.values_list("recipient__username", flat=True)) == ["bob"]


# The team's activity log.


def test_a_team_packets_share_and_its_end_are_in_the_teams_log(api_as, alice, bob, dave):
    team = make_team(alice, "alpha", members=[dave])
    allow_sharing_outside(api_as(alice), "alpha")
    packet = push_packet(dave, team=team, goal="Tune the importer")
    made = share(api_as(dave), packet.id, "bob")
    assert made.status_code == 201
    assert api_as(bob).delete(f"/v1/shares/{made.json()['share']['id']}").status_code == 204
    events = api_as(alice).get("/v1/teams/alpha/events").json()["events"]
    shares = [event for event in events if event["kind"] in (TeamEvent.PACKET_SHARED, TeamEvent.PACKET_UNSHARED)]
    assert [(e["kind"], e["actor"]["display"], e["detail"]) for e in shares] == [
        (
            TeamEvent.PACKET_UNSHARED,
            "bob",
            {"packet_id": packet.id, "goal": "Tune the importer", "user_id": bob.id, "name": "bob"},
        ),
        (
            TeamEvent.PACKET_SHARED,
            "dave",
            {"packet_id": packet.id, "goal": "Tune the importer", "user_id": bob.id, "name": "bob"},
        ),
    ]
    assert shares[1]["summary"] == f"shared packet {packet.id} (Tune the importer) with bob"


def test_a_personal_packets_share_writes_no_log(sender, packet, shared, alice):
    make_team(alice, "alpha")
    assert sender.delete(f"/v1/shares/{shared['id']}").status_code == 204
    assert not TeamEvent.objects.filter(kind__in=[TeamEvent.PACKET_SHARED, TeamEvent.PACKET_UNSHARED]).exists()


# The limit per sender.


def test_shares_are_limited_per_sender_with_429(settings, sender, api_as, alice, carol, dave, adam):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "2/h/user"}
    packet = push_packet(alice)
    assert share(sender, packet.id, "bob").status_code == 201
    assert share(sender, packet.id, "carol").status_code == 201
    refused = share(sender, packet.id, "dave")
    assert refused.status_code == 429
    assert "too many shares" in refused.json()["error"]
    assert refused["Retry-After"] == "3600"  # the window of 2/h
    assert not Share.objects.filter(recipient=dave).exists()
    other = push_packet(adam)
    assert share(api_as(adam), other.id, "dave").status_code == 201  # another sender has their own count


def test_unknown_names_count_against_the_limit_so_names_cannot_be_tried_without_end(settings, sender, packet):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "2/h/user"}
    assert share(sender, packet.id, "nobody").status_code == 404
    assert share(sender, packet.id, "noone").status_code == 404
    for name in ("bob", "nobody-else"):  # past the limit a name is not looked up, known or not
        refused = share(sender, packet.id, name)
        assert (refused.status_code, refused["Retry-After"]) == (429, "3600"), name
        assert "too many shares" in refused.json()["error"]
    assert not Share.objects.exists()


def test_sharing_with_yourself_counts_against_the_limit_too(settings, sender, packet):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "1/h/user"}
    assert share(sender, packet.id, "alice").status_code == 400
    assert share(sender, packet.id, "bob").status_code == 429


def test_an_unknown_name_and_a_known_one_cost_the_same_queries(alice, packet):
    """Up to the answer, an unknown name (404) and a known one refused for another reason (the
    sender themselves, 400) run the same statements: the answer's timing tells nothing more."""

    def statements(to) -> list[str]:
        with CaptureQueriesContext(connection) as queries, pytest.raises(HubError):
            services.share_create(actor=alice, packet_id=packet.id, to=to)
        sql = (query["sql"].replace(f"'{to}'", "'?'") for query in queries.captured_queries)
        return [re.sub(r'"s\w+_x\d+"', "<savepoint>", statement) for statement in sql]

    statements("nobody")  # once first: whether alice has a second factor is then known (accounts.mfa)
    unknown = statements("nobody")
    assert unknown == statements("alice")
    assert sum('"accounts_user"' in statement for statement in unknown) == 1  # the one lookup by name
