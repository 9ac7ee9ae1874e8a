"""GET /v1/packets/{id}/thread: the parent_id chain that holds a packet, as far as the caller may
read it."""

import pytest

from packets.models import Packet
from packets.testing import packet_v02, push_packet, store_directly
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def chain(owner, count, team=None, parent=None, start_day=1):
    """`count` packets of `owner`, each continuing the one before (the first continues `parent`)."""
    packets = []
    for index in range(count):
        fields = {"created_at": f"2026-02-{start_day + index:02d}T10:00:00Z", "goal": f"step {index}"}
        if parent or packets:
            fields["parent_id"] = packets[-1].id if packets else parent
        packets.append(push_packet(owner, team=team, **fields))
    return packets


def thread_ids(api, packet_id):
    response = api.get(f"/v1/packets/{packet_id}/thread")
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["packets"]]


def test_the_whole_chain_from_any_of_its_packets_oldest_first(api_as, alice):
    first, middle, last = chain(alice, 3)
    api = api_as(alice)
    for packet in (first, middle, last):
        assert thread_ids(api, packet.id) == [first.id, middle.id, last.id]


def test_items_carry_id_parent_created_at_goal_and_team(api_as, alice):
    alpha = make_team(alice, "alpha")
    first = push_packet(alice, created_at="2026-02-01T10:00:00+02:00", goal="start")
    second = push_packet(alice, team=alpha, created_at="2026-02-02T10:00:00Z", goal="go on", parent_id=first.id)
    body = api_as(alice).get(f"/v1/packets/{first.id}/thread").json()
    assert body == {
        "packets": [
            {"id": first.id, "parent_id": None, "created_at": "2026-02-01T08:00:00Z", "goal": "start", "team": None},
            {
                "id": second.id,
                "parent_id": first.id,
                "created_at": "2026-02-02T10:00:00Z",
                "goal": "go on",
                "team": "alpha",
            },
        ]
    }


def test_branches_belong_to_the_thread(api_as, alice):
    root, left = chain(alice, 2)
    right = push_packet(alice, created_at="2026-02-05T10:00:00Z", parent_id=root.id)
    grandchild = push_packet(alice, created_at="2026-02-06T10:00:00Z", parent_id=right.id)
    unrelated = push_packet(alice, created_at="2026-02-03T10:00:00Z")
    expected = [root.id, left.id, right.id, grandchild.id]
    assert thread_ids(api_as(alice), left.id) == expected
    assert thread_ids(api_as(alice), unrelated.id) == [unrelated.id]


def test_an_unreadable_middle_packet_cuts_the_chain(api_as, alice, bob):
    """bob cannot read alice's personal packet in the middle: his thread stops on each side of it."""
    alpha = make_team(alice, "alpha", members=[bob])
    first = push_packet(alice, team=alpha, created_at="2026-02-01T10:00:00Z")
    private = push_packet(alice, created_at="2026-02-02T10:00:00Z", parent_id=first.id)
    third = push_packet(alice, team=alpha, created_at="2026-02-03T10:00:00Z", parent_id=private.id)
    sibling = push_packet(alice, team=alpha, created_at="2026-02-04T10:00:00Z", parent_id=first.id)
    assert thread_ids(api_as(alice), third.id) == [first.id, private.id, third.id, sibling.id]
    bob_api = api_as(bob)
    assert thread_ids(bob_api, third.id) == [third.id]
    assert thread_ids(bob_api, first.id) == [first.id, sibling.id]


def test_missing_parents_end_the_chain(api_as, alice):
    orphan = push_packet(alice, parent_id="01NOSUCHPACKET000000000000")
    child = push_packet(alice, parent_id=orphan.id, created_at="2026-05-01T00:00:00Z")
    items = api_as(alice).get(f"/v1/packets/{child.id}/thread").json()["packets"]
    assert [item["id"] for item in items] == [orphan.id, child.id]
    assert items[0]["parent_id"] == "01NOSUCHPACKET000000000000"


def test_cycles_end_instead_of_looping(api_as, alice):
    a, b, c = (packet_v02(created_at=f"2026-03-0{day}T00:00:00Z") for day in (1, 2, 3))
    for packet in (a, b, c):
        store_directly(alice, packet)
    Packet.objects.filter(pk=a["id"]).update(parent_id=c["id"])
    Packet.objects.filter(pk=b["id"]).update(parent_id=a["id"])
    Packet.objects.filter(pk=c["id"]).update(parent_id=b["id"])
    selfish = packet_v02(created_at="2026-03-05T00:00:00Z")
    store_directly(alice, selfish)
    Packet.objects.filter(pk=selfish["id"]).update(parent_id=selfish["id"])
    api = api_as(alice)
    assert thread_ids(api, b["id"]) == [a["id"], b["id"], c["id"]]
    assert thread_ids(api, selfish["id"]) == [selfish["id"]]


def test_a_long_chain_comes_back_whole(api_as, alice):
    packets = [packet_v02(created_at="2026-01-01T00:00:00Z") for _ in range(300)]
    Packet.objects.bulk_create(
        Packet(
            id=packet["id"],
            owner=alice,
            ltm_version="0.2",
            created_at="2026-01-01T00:00:00Z",
            goal="g",
            next_step="n",
            body="{}",
            parent_id=packets[index - 1]["id"] if index else "",
        )
        for index, packet in enumerate(packets)
    )
    assert len(thread_ids(api_as(alice), packets[150]["id"])) == 300


def test_someone_elses_packet_is_404_like_a_missing_one(api_as, alice, bob):
    mine = push_packet(alice)
    for path in (f"/v1/packets/{mine.id}/thread", "/v1/packets/01NOSUCHPACKET000000000000/thread"):
        response = api_as(bob).get(path)
        assert response.status_code == 404
        assert response.json() == {"error": "packet not found"}


def test_a_former_team_member_no_longer_reads_the_thread(api_as, alice, bob):
    alpha = make_team(alice, "alpha", members=[bob])
    packet = push_packet(alice, team=alpha)
    assert thread_ids(api_as(bob), packet.id) == [packet.id]
    alpha.memberships.filter(user=bob).delete()
    assert api_as(bob).get(f"/v1/packets/{packet.id}/thread").status_code == 404


def test_needs_a_bearer(anon_api, alice):
    packet = push_packet(alice)
    assert anon_api.get(f"/v1/packets/{packet.id}/thread").status_code == 401


def test_the_thread_route_is_not_read_as_part_of_an_id(api_as, alice):
    packet = push_packet(alice)
    assert api_as(alice).get(f"/v1/packets/{packet.id}").status_code == 200
    assert api_as(alice).get(f"/v1/packets/{packet.id}/thread/").status_code == 404
