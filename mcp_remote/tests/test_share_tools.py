"""The `share` and `inbox` tools on /mcp, over the hub's share services: a share made, listed on
both sides, seen once the recipient reads the packet (show, pull or resume), shared again, and
refused with the hub's message."""

import json

import pytest

from ltm.protocol.packet import example_packet
from mcp_remote.testing import call
from oauth.testing import make_access_token
from packets.models import Share
from packets.services import packet_push

PACKET_ID = example_packet()["id"]


@pytest.fixture
def shared(alice, bob, make_token):
    """Alice's packet, shared with bob by the `share` tool: (alice's token, bob's token, answer)."""
    packet_push(actor=alice, packet=example_packet())
    alice_token, bob_token = make_token(alice), make_token(bob)
    answer, is_error = call(alice_token, "share", {"id": PACKET_ID, "to": "bob", "note": "read the decisions"})
    assert not is_error, answer
    return alice_token, bob_token, answer


def inbox(token, **arguments):
    text, is_error = call(token, "inbox", arguments)
    assert not is_error, text
    return json.loads(text)


def test_share_makes_one_share_the_recipient_finds_in_the_inbox(shared, alice, bob):
    alice_token, bob_token, answer = shared
    share = Share.objects.get()
    assert (share.packet_id, share.sender, share.recipient, share.note) == (PACKET_ID, alice, bob, "read the decisions")
    assert answer == f"shared packet {PACKET_ID} with bob (share {share.id}); it is in their inbox."

    (item,) = inbox(bob_token)
    assert item["id"] == share.id and item["packet_id"] == PACKET_ID
    assert item["goal"] == example_packet()["goal"]
    assert item["from"] == {"id": alice.id, "display": "alice"} and item["to"] == {"id": bob.id, "display": "bob"}
    assert item["note"] == "read the decisions" and item["seen"] is False
    assert inbox(alice_token) == []  # alice's inbox is empty; what she shared is "out"
    assert [item["id"] for item in inbox(alice_token, direction="out")] == [share.id]


@pytest.mark.parametrize("tool", ["show", "pull", "resume"])
def test_reading_the_packet_marks_its_share_seen(shared, tool):
    alice_token, bob_token, _ = shared
    text, is_error = call(bob_token, tool, {"id": PACKET_ID})
    assert not is_error, text
    assert inbox(bob_token)[0]["seen"] is True
    assert inbox(alice_token, direction="out")[0]["seen"] is True


def test_search_results_name_who_shared_the_packet(shared):
    alice_token, bob_token, _ = shared
    (result,) = json.loads(call(bob_token, "search", {"q": PACKET_ID})[0])
    assert result["id"] == PACKET_ID and result["shared_by"] == "alice"
    assert json.loads(call(alice_token, "search", {"q": PACKET_ID})[0])[0]["shared_by"] is None  # her own


def test_sharing_again_keeps_the_one_share_and_replaces_its_note(shared):
    alice_token, _, _ = shared
    text, is_error = call(alice_token, "share", {"id": PACKET_ID, "to": "bob", "note": "only the last part"})
    share = Share.objects.get()
    assert not is_error
    assert text == f"bob already had packet {PACKET_ID} from the person; share {share.id} stays, its note replaced."
    assert share.note == "only the last part"


def test_share_refusals_are_tool_errors_with_the_hubs_message(shared, carol, make_token):
    alice_token, bob_token, _ = shared
    assert call(alice_token, "share", {"id": PACKET_ID, "to": "nobody"}) == ("no such user", True)
    assert call(alice_token, "share", {"id": PACKET_ID, "to": "alice"}) == (
        "you cannot share a packet with yourself",
        True,
    )
    text, is_error = call(bob_token, "share", {"id": PACKET_ID, "to": "carol"})  # bob may read it, not share it
    assert is_error and text.startswith("only the packet's creator can share a personal packet")
    assert call(make_token(carol), "share", {"id": PACKET_ID, "to": "bob"}) == ("packet not found", True)
    text, is_error = call(alice_token, "share", {"id": PACKET_ID, "to": "bob", "note": "x" * 501})
    assert is_error and text.startswith("invalid arguments for share:")
    assert Share.objects.count() == 1


def test_unknown_names_count_against_the_share_limit(settings, alice, make_token):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "packet_share": "1/h/user"}
    packet_push(actor=alice, packet=example_packet())
    token = make_token(alice)
    assert call(token, "share", {"id": PACKET_ID, "to": "nobody"}) == ("no such user", True)
    text, is_error = call(token, "share", {"id": PACKET_ID, "to": "bob"})
    assert is_error and text.startswith("too many shares"), text
    assert not Share.objects.exists()


def test_share_needs_the_write_scope_and_inbox_read(shared, bob):
    make_access_token(bob, token="bob-read-only", scope="read")
    text, is_error = call("bob-read-only", "share", {"id": PACKET_ID, "to": "alice"})
    assert is_error and "needs 'write'" in text
    assert [item["packet_id"] for item in inbox("bob-read-only")] == [PACKET_ID]
