"""Deleting a team while invites to it are accepted: no 500 (the deletion and the accepts take
the team row in the same order, so they cannot deadlock), no user or token left behind by an
accept that lost, and an invite spent at most once.

Real threads on PostgreSQL, released together (see core.testing.run_at_once)."""

import pytest

from accounts.models import ApiToken, User
from core.testing import require_postgresql, run_at_once
from teams.models import Invite, Membership, Team
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db(transaction=True)

CLIENTS = 16
ROUNDS = 20
SAME_CODE = 8  # of the accepts, this many race for one code; the others each have their own


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql()


def test_deleting_a_team_while_fifteen_invites_are_accepted(api_as, api_with_token, alice, make_user):
    signed_in = [api_as(make_user(f"joiner{i}")) for i in range(4)]
    owner_api = api_as(alice)

    for round_number in range(ROUNDS):
        team = make_team(alice, f"race-{round_number}")
        shared = make_invite(team)[1]
        own_codes = [make_invite(team)[1] for _ in range(CLIENTS - 1 - SAME_CODE)]
        codes = [shared] * SAME_CODE + own_codes
        callers = signed_in + [api_with_token(None)] * (len(codes) - len(signed_in))
        accepts = [
            lambda api=api, code=code: api.post(f"/v1/invites/{code}/accept", {}) for api, code in zip(callers, codes)
        ]
        users_before, tokens_before = User.objects.count(), ApiToken.objects.count()

        *accepted, deleted = run_at_once(accepts + [lambda: owner_api.delete(f"/v1/teams/{team.name}")])

        assert deleted.status_code == 204
        statuses = [response.status_code for response in accepted]
        assert set(statuses) <= {201, 410}, [r.content for r in accepted]
        assert statuses[:SAME_CODE].count(201) <= 1  # one code, spent at most once
        new_users = sum(1 for api, status in zip(callers, statuses) if status == 201 and api.token is None)
        assert User.objects.count() == users_before + new_users  # losers made nobody
        assert ApiToken.objects.count() == tokens_before + new_users
        assert not Team.objects.filter(pk=team.pk).exists()
        assert not Invite.objects.filter(team_id=team.pk).exists()
        assert not Membership.objects.filter(team_id=team.pk).exists()
