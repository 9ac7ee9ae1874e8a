"""Sharing a packet with a person by name on the wire (a hub extension): POST
/v1/packets/{id}/shares, GET /v1/shares, DELETE /v1/shares/{id}. What the recipient then reads,
and what stays refused to them, is test_shares_reach.py; who may share, and when a share ends,
test_shares_rules.py; concurrent shares, test_share_race.py."""

import pytest

from core.testing import ApiClient
from core.timestamps import rfc3339
from oauth.testing import device_token
from packets.models import Share
from packets.testing import push_packet
from packets.testing.sharing import NOT_FOUND, share

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _people(alice, bob, carol):
    """alice shares; bob and carol are there to share with."""


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
