"""Deleting a team while its members push into it: every push answers 201 (it came first and was
deleted with the team) or 404 (it came after), never a 500, and no packet outlives its team.

Real threads on PostgreSQL, released together (see core.testing.run_at_once)."""

import pytest

from core.testing import require_postgresql, run_at_once
from packets.models import Packet
from packets.testing import packet_v02
from teams.models import Team
from teams.testing import make_team

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 16
ROUNDS = 20


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql()


def test_deleting_a_team_while_sixteen_clients_push_into_it(api_as, alice, make_user):
    members = [make_user(f"member{i}") for i in range(CLIENTS - 1)]
    member_apis = [api_as(member) for member in members]
    owner_api = api_as(alice)
    seen = []

    for round_number in range(ROUNDS):
        team = make_team(alice, f"race-{round_number}", members=members)
        pushes = [lambda api=api: api.post(f"/v1/packets?team={team.name}", packet_v02()) for api in member_apis]
        deletion = lambda: owner_api.delete(f"/v1/teams/{team.name}")  # noqa: E731

        *pushed, deleted = run_at_once(pushes + [deletion])

        assert deleted.status_code == 204
        assert {response.status_code for response in pushed} <= {201, 404}, [r.content for r in pushed]
        assert all(r.json() == {"error": "team not found"} for r in pushed if r.status_code == 404)
        assert not Team.objects.filter(pk=team.pk).exists()
        assert not Packet.objects.filter(team_id=team.pk).exists()
        seen.extend(response.status_code for response in pushed)

    assert not Packet.objects.filter(owner__in=members).exists()  # nothing landed anywhere else
    assert len(seen) == ROUNDS * (CLIENTS - 1)


def test_deleting_a_team_while_its_packets_are_re_pushed_published_deleted_and_moved(api_as, alice, make_user):
    """Each of these changes writes a line of the team's log while it holds the packet's row; the
    deletion holds the team and waits for its packets. Nobody deadlocks or gets a 500, and no line
    of the log outlives the team."""
    from packets.services import packet_move
    from teams.models import Membership, TeamEvent

    writers = [make_user(f"writer{i}") for i in range(4)]
    admin = make_user("admin")
    apis = [api_as(writer) for writer in writers]
    admin_api = api_as(admin)
    owner_api = api_as(alice)

    for round_number in range(ROUNDS // 2):
        team = make_team(alice, f"race-{round_number}", members=writers)
        Membership.objects.create(team=team, user=admin, role=Membership.ADMIN)
        packets = [packet_v02() for _ in writers]
        for api, packet in zip(apis, packets):
            assert api.post(f"/v1/packets?team={team.name}", packet).status_code == 201
        extra = [packet_v02() for _ in range(2)]
        for packet in extra:
            assert apis[0].post(f"/v1/packets?team={team.name}", packet).status_code == 201

        def move_out(packet_id=extra[1]["id"], mover=writers[0]):
            try:
                packet_move(actor=mover, packet_id=packet_id, team=None)
                return 200
            except Exception as exc:  # NotFound once the team (and the packet) are gone
                return type(exc).__name__

        calls = [
            lambda api=api, packet=packet: api.post(f"/v1/packets?team={team.name}", dict(packet, goal="again"))
            for api, packet in zip(apis, packets)
        ]
        calls += [
            lambda: admin_api.post(f"/v1/packets/{packets[0]['id']}/publish"),
            lambda: admin_api.delete(f"/v1/packets/{extra[0]['id']}"),
            move_out,
            lambda: owner_api.delete(f"/v1/teams/{team.name}"),
        ]
        *changes, moved, deleted = run_at_once(calls)

        assert deleted.status_code == 204
        assert all(response.status_code in (200, 201, 204, 404) for response in changes), [
            (response.status_code, response.content) for response in changes
        ]
        assert moved in (200, "NotFound")
        assert not TeamEvent.objects.filter(team_id=team.pk).exists()
        assert not Packet.objects.filter(team_id=team.pk).exists()
