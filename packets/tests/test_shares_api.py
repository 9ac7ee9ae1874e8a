"""Sharing a packet with a person by name on the wire (issue 25, a hub extension): POST
/v1/packets/{id}/shares, GET /v1/shares, DELETE /v1/shares/{id}; what the recipient then reads on
every reading path, and the changes still refused to them. Who may share, and when a share ends,
are test_shares_rules.py; concurrent shares are test_share_race.py."""

import json
import re

import pytest
from django.contrib.messages import get_messages
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.errors import HubError
from core.testing import ApiClient, signed_in
from core.timestamps import rfc3339
from oauth.testing import device_token
from packets import shares
from packets.models import Packet, Share
from packets.testing import push_packet
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db

NOT_FOUND = {"error": "packet not found"}


def share(api, packet_id, to, note=None):
    """POST /v1/packets/{packet_id}/shares as `api`'s person: {"to": to} and the note if given."""
    return api.post(f"/v1/packets/{packet_id}/shares", {"to": to} if note is None else {"to": to, "note": note})


def team_settings(api, team_name, body):
    """PATCH /v1/teams/{team_name} with the JSON `body` as `api`'s person."""
    return api.client.patch(
        f"/v1/teams/{team_name}",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def allow_sharing_outside(api, team_name):
    response = team_settings(api, team_name, {"share_outside": True})
    assert response.status_code == 200, response.content
    assert response.json()["team"]["share_outside"] is True


def exported_ids(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [json.loads(line)["id"] for line in b"".join(response.streaming_content).splitlines()]


@pytest.fixture(autouse=True)
def _people(alice, bob, carol):
    """alice shares; bob and carol are there to share with."""


@pytest.fixture
def sender(api_as, alice):
    alice.display = "Alice Archer"
    alice.save()
    return api_as(alice)


@pytest.fixture
def recipient(api_as, bob):
    return api_as(bob)


@pytest.fixture
def packet(alice):
    """alice's personal packet."""
    return push_packet(alice, goal="Make the importer idempotent")


@pytest.fixture
def shared(sender, packet):
    """alice's packet, shared with bob: the share's answer."""
    response = share(sender, packet.id, "bob", note="have a look")
    assert response.status_code == 201, response.content
    return response.json()["share"]


# POST /v1/packets/{id}/shares


def test_a_share_answers_201_with_the_share_as_the_issue_says(sender, packet, alice, bob):
    response = share(sender, packet.id, "bob", note="have a look")
    assert response.status_code == 201
    made = Share.objects.get()
    assert response.json() == {
        "share": {
            "id": made.id,
            "packet_id": packet.id,
            "goal": "Make the importer idempotent",
            "from": {"id": alice.id, "display": "Alice Archer"},
            "to": {"id": bob.id, "display": "bob"},
            "note": "have a look",
            "created_at": rfc3339(made.created_at),
        }
    }
    assert response.json()["share"]["created_at"].endswith("Z")
    assert (made.packet_id, made.sender_id, made.recipient_id, made.seen_at) == (packet.id, alice.id, bob.id, None)


def test_a_share_without_a_note_has_an_empty_note(sender, packet):
    response = share(sender, packet.id, "bob")
    assert response.status_code == 201
    assert response.json()["share"]["note"] == ""


def test_sharing_again_answers_200_with_the_same_share_and_the_note_updated(sender, packet, shared):
    again = share(sender, packet.id, "bob", note="the second part matters")
    assert again.status_code == 200
    assert again.json()["share"] == {**shared, "note": "the second part matters"}
    assert Share.objects.get().note == "the second part matters"


def test_an_unknown_username_is_404_no_such_user(sender, packet, make_user):
    gone = make_user("gone")
    gone.is_active = False
    gone.save()
    for name in ("nobody", "gone"):
        response = share(sender, packet.id, name)
        assert (response.status_code, response.json()) == (404, {"error": "no such user"}), name
    assert not Share.objects.exists()


def test_sharing_with_yourself_is_400(sender, packet):
    response = share(sender, packet.id, "alice")
    assert response.status_code == 400
    assert "yourself" in response.json()["error"]
    assert not Share.objects.exists()


def test_a_packet_you_cannot_read_is_404_as_for_a_pull(api_as, carol, packet):
    stranger = api_as(carol)
    for packet_id in (packet.id, "01NOSUCHPACKET000000000000"):
        pulled = stranger.get(f"/v1/packets/{packet_id}")
        response = share(stranger, packet_id, "bob")
        assert (response.status_code, response.json()) == (pulled.status_code, pulled.json()) == (404, NOT_FOUND)
    assert not Share.objects.exists()


def test_a_note_over_500_characters_is_400_saying_so(sender, packet):
    response = share(sender, packet.id, "bob", note="x" * 501)
    assert response.status_code == 400
    assert "500" in response.json()["error"] and "note" in response.json()["error"]
    assert not Share.objects.exists()
    assert share(sender, packet.id, "bob", note="x" * 500).status_code == 201


@pytest.mark.parametrize(
    "body",
    [{"to": 7}, {"to": ["bob"]}, {"to": {"name": "bob"}}, {"to": True}, {"to": "bob", "note": 5}, {}, {"note": "hi"}],
    ids=str,
)
def test_wrong_json_types_are_400(sender, packet, body):
    response = sender.post(f"/v1/packets/{packet.id}/shares", body)
    assert response.status_code == 400
    assert response.json()["error"].startswith(("to ", "note "))
    assert not Share.objects.exists()


@pytest.mark.parametrize("raw", ["{not json", '["bob"]', '"bob"'])
def test_a_body_that_is_not_a_json_object_is_400(sender, packet, raw):
    response = sender.post(f"/v1/packets/{packet.id}/shares", raw=raw)
    assert response.status_code == 400
    assert response.json()["error"]
    assert not Share.objects.exists()


def test_a_read_only_token_may_not_share_nor_end_a_share(client, alice, packet, shared):
    reader = ApiClient(device_token(client, alice, scope="read"))
    refusal = {"error": "this token's scope does not allow this request (it needs 'write')"}
    response = share(reader, packet.id, "carol")
    assert (response.status_code, response.json()) == (403, refusal)
    withdrawn = reader.delete(f"/v1/shares/{shared['id']}")
    assert (withdrawn.status_code, withdrawn.json()) == (403, refusal)
    assert list(Share.objects.values_list("recipient__username", flat=True)) == ["bob"]
    assert reader.get("/v1/shares?direction=out").status_code == 200  # listing is a read


# GET /v1/shares


def test_the_inbox_lists_what_was_shared_with_the_caller_newest_first(sender, recipient, alice, make_user):
    first, second = push_packet(alice, goal="first"), push_packet(alice, goal="second")
    ids = [share(sender, packet.id, "bob").json()["share"]["id"] for packet in (first, second)]
    Share.objects.filter(pk=ids[0]).update(created_at="2026-01-01T00:00:00Z")  # a clear order
    Share.objects.filter(pk=ids[1]).update(created_at="2026-01-02T00:00:00Z")
    inbox = recipient.get("/v1/shares")
    assert inbox.status_code == 200
    assert [(item["id"], item["goal"]) for item in inbox.json()["shares"]] == [(ids[1], "second"), (ids[0], "first")]
    assert recipient.get("/v1/shares?direction=in").json() == inbox.json()
    assert [item["id"] for item in recipient.get("/v1/shares?limit=1").json()["shares"]] == [ids[1]]
    assert recipient.get("/v1/shares?direction=out").json() == {"shares": []}
    assert sender.get("/v1/shares").json() == {"shares": []}  # nothing was shared with alice


def test_the_out_list_is_what_the_caller_shared(sender, recipient, packet, alice, bob, carol):
    to_bob = share(sender, packet.id, "bob").json()["share"]
    to_carol = share(sender, packet.id, "carol").json()["share"]
    Share.objects.filter(pk=to_bob["id"]).update(created_at="2026-01-01T00:00:00Z")
    Share.objects.filter(pk=to_carol["id"]).update(created_at="2026-01-02T00:00:00Z")
    out = sender.get("/v1/shares?direction=out").json()["shares"]
    assert [(item["id"], item["to"]["id"], item["from"]["id"]) for item in out] == [
        (to_carol["id"], carol.id, alice.id),
        (to_bob["id"], bob.id, alice.id),
    ]
    assert [item["id"] for item in recipient.get("/v1/shares").json()["shares"]] == [to_bob["id"]]


def test_an_item_of_the_list_is_the_share_plus_seen(recipient, shared):
    (item,) = recipient.get("/v1/shares").json()["shares"]
    created_at = rfc3339(Share.objects.get().created_at)
    assert item == {**shared, "created_at": created_at, "seen": False}


def test_reading_the_packet_marks_it_seen_for_the_recipient_only(sender, recipient, packet, shared):
    assert sender.get(f"/v1/packets/{packet.id}").status_code == 200  # the sender reading it is no sign
    assert [item["seen"] for item in recipient.get("/v1/shares").json()["shares"]] == [False]
    assert recipient.get(f"/v1/packets/{packet.id}").status_code == 200
    assert [item["seen"] for item in recipient.get("/v1/shares").json()["shares"]] == [True]
    assert [item["seen"] for item in sender.get("/v1/shares?direction=out").json()["shares"]] == [True]


def test_a_new_note_shows_as_unseen_again(sender, recipient, packet, shared):
    recipient.get(f"/v1/packets/{packet.id}")
    assert share(sender, packet.id, "bob", note="have a look").status_code == 200  # the same note
    assert [item["seen"] for item in recipient.get("/v1/shares").json()["shares"]] == [True]
    assert share(sender, packet.id, "bob", note="look again").status_code == 200
    assert [item["seen"] for item in recipient.get("/v1/shares").json()["shares"]] == [False]


@pytest.mark.parametrize("query", ["direction=both", "direction=IN", "limit=0", "limit=201", "limit=abc", "limit=-1"])
def test_a_bad_direction_or_limit_is_400(recipient, shared, query):
    response = recipient.get(f"/v1/shares?{query}")
    assert response.status_code == 400, query
    assert response.json()["error"].startswith(query.split("=")[0])


def test_the_largest_limit_is_200(recipient, shared):
    assert len(recipient.get("/v1/shares?limit=200").json()["shares"]) == 1


# DELETE /v1/shares/{id}


def test_the_sender_withdraws_and_the_recipients_next_request_is_404(sender, recipient, packet, shared):
    assert recipient.get(f"/v1/packets/{packet.id}").status_code == 200
    response = sender.delete(f"/v1/shares/{shared['id']}")
    assert (response.status_code, response.content) == (204, b"")
    pulled = recipient.get(f"/v1/packets/{packet.id}")
    assert (pulled.status_code, pulled.json()) == (404, NOT_FOUND)
    assert recipient.get("/v1/shares").json() == {"shares": []}
    assert sender.get("/v1/shares?direction=out").json() == {"shares": []}
    assert sender.get(f"/v1/packets/{packet.id}").status_code == 200  # the packet itself stays


def test_the_recipient_dismisses_and_reads_it_no_more(recipient, packet, shared):
    response = recipient.delete(f"/v1/shares/{shared['id']}")
    assert response.status_code == 204
    assert recipient.get(f"/v1/packets/{packet.id}").status_code == 404
    assert not Share.objects.exists()


def test_anyone_else_gets_404_and_the_share_stays(api_as, carol, recipient, packet, shared):
    response = api_as(carol).delete(f"/v1/shares/{shared['id']}")
    assert (response.status_code, response.json()) == (404, {"error": "share not found"})
    assert Share.objects.filter(pk=shared["id"]).exists()
    assert recipient.get(f"/v1/packets/{packet.id}").status_code == 200


def test_ending_a_share_twice_is_404(sender, recipient, shared):
    assert sender.delete(f"/v1/shares/{shared['id']}").status_code == 204
    for api in (sender, recipient):
        again = api.delete(f"/v1/shares/{shared['id']}")
        assert (again.status_code, again.json()) == (404, {"error": "share not found"})
    assert sender.delete("/v1/shares/01NOSUCHSHARE0000000000000").status_code == 404


# The recipient reads it wherever reading happens.


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
            shares.share_create(actor=alice, packet_id=packet.id, to=to)
        sql = (query["sql"].replace(f"'{to}'", "'?'") for query in queries.captured_queries)
        return [re.sub(r'"s\w+_x\d+"', "<savepoint>", statement) for statement in sql]

    unknown = statements("nobody")
    assert unknown == statements("alice")
    assert sum('"accounts_user"' in statement for statement in unknown) == 1  # the one lookup by name
