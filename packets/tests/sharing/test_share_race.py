"""Shares made at the same moment as each other, or as the change that ends them: one share per
packet, sender and recipient whatever the timing; a share racing the packet's delete, the team's
setting turned off or its sender leaving is never a 500 and never outlives what ended it.

Real threads on PostgreSQL, released together (see core.testing.run_at_once)."""

import pytest

from core.testing import require_postgresql, run_at_once
from packets.models import Packet, Share
from packets.testing import packet_v02, push_packet
from packets.testing.sharing import allow_sharing_outside, share, team_settings
from teams.testing import make_team

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 16
ROUNDS = 10


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql()


def test_sixteen_shares_of_one_packet_to_one_person_make_one_share(api_as, alice, bob):
    packet = push_packet(alice)
    apis = [api_as(alice) for _ in range(THREADS)]

    responses = run_at_once([lambda api=api: share(api, packet.id, "bob", note="look") for api in apis])

    assert sorted(r.status_code for r in responses) == [200] * (THREADS - 1) + [201], [r.content for r in responses]
    made = Share.objects.get()
    assert {r.json()["share"]["id"] for r in responses} == {made.id}
    assert (made.sender_id, made.recipient_id, made.note) == (alice.id, bob.id, "look")


def test_a_share_racing_the_packets_delete_answers_and_leaves_no_share(api_as, alice, make_user):
    recipients = [make_user(f"reader{i}") for i in range(THREADS // 2)]
    sharers = [api_as(alice) for _ in recipients]
    deleter = api_as(alice)
    seen = set()

    for _ in range(ROUNDS):
        packet = packet_v02()
        assert deleter.post("/v1/packets", packet).status_code == 201
        calls = [lambda api=api, to=to: share(api, packet["id"], to.username) for api, to in zip(sharers, recipients)]
        *shared, deleted = run_at_once([*calls, lambda: deleter.delete(f"/v1/packets/{packet['id']}")])

        assert deleted.status_code == 204
        assert {r.status_code for r in shared} <= {201, 404}, [(r.status_code, r.content) for r in shared]
        assert all(r.json() == {"error": "packet not found"} for r in shared if r.status_code == 404)
        assert not Packet.objects.filter(pk=packet["id"]).exists()
        assert not Share.objects.exists()
        seen |= {r.status_code for r in shared}
    assert seen  # every round answered


def sharing_teams(api_as, owner, members):
    """A team per round, owned by `owner` with `members`, allowing sharing outside it, each with a
    packet the first of `members` pushed: (team name, packet id) pairs."""
    for round_number in range(ROUNDS):
        team = make_team(owner, f"race-{round_number}", members=members)
        allow_sharing_outside(api_as(owner), team.name)
        yield team.name, push_packet(members[0], team=team).id


def test_a_share_racing_the_setting_turned_off_does_not_outlive_it(api_as, alice, bob, make_user):
    members = [make_user(f"member{i}") for i in range(THREADS // 2)]
    owner = api_as(alice)
    for team_name, packet_id in sharing_teams(api_as, alice, members):
        calls = [lambda api=api: share(api, packet_id, "bob") for api in map(api_as, members)]
        *shared, turned_off = run_at_once([*calls, lambda: team_settings(owner, team_name, {"share_outside": False})])

        assert turned_off.status_code == 200
        assert {r.status_code for r in shared} <= {201, 403}, [(r.status_code, r.content) for r in shared]
        assert not Share.objects.filter(packet_id=packet_id).exists()


def test_a_share_racing_its_sender_leaving_does_not_outlive_the_membership(api_as, alice, bob, make_user):
    leavers = [make_user(f"leaver{i}") for i in range(THREADS // 2)]
    for team_name, packet_id in sharing_teams(api_as, alice, leavers):
        calls = []
        for api in map(api_as, leavers):
            calls += [
                lambda api=api: share(api, packet_id, "bob"),
                lambda api=api: api.post(f"/v1/teams/{team_name}/leave", {}),
            ]

        answers = run_at_once(calls)

        assert all(r.status_code == 204 for r in answers[1::2]), [r.content for r in answers[1::2]]
        assert {r.status_code for r in answers[::2]} <= {201, 404}, [(r.status_code, r.content) for r in answers[::2]]
        assert not Share.objects.filter(packet_id=packet_id).exists()


def test_a_share_racing_the_teams_delete_answers_and_leaves_no_share(api_as, alice, bob, make_user):
    """The share holds the team, then the packet, in the order the team's delete takes them:
    neither waits for the other forever (a deadlock would be a 500)."""
    members = [make_user(f"member{i}") for i in range(THREADS // 2)]
    owner = api_as(alice)
    for team_name, packet_id in sharing_teams(api_as, alice, members):
        calls = [lambda api=api: share(api, packet_id, "bob") for api in map(api_as, members)]
        *shared, deleted = run_at_once([*calls, lambda: owner.delete(f"/v1/teams/{team_name}")])

        assert deleted.status_code == 204
        assert {r.status_code for r in shared} <= {201, 404}, [(r.status_code, r.content) for r in shared]
        assert all(r.json() == {"error": "packet not found"} for r in shared if r.status_code == 404)
        assert not Packet.objects.filter(pk=packet_id).exists()
        assert not Share.objects.exists()
