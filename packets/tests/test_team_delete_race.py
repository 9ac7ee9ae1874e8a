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
