"""Many concurrent accepts of one invite: exactly one wins, the others get 410 and leave nothing.

Real threads, each with its own database connection, released together by a barrier. SQLite
serialises writers, so the race only means something on PostgreSQL (DATABASE_URL in CI).
"""

import pytest

from accounts.models import ApiToken, User
from core.testing import require_postgresql, run_at_once
from teams.models import Invite, Membership
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 16


@pytest.fixture(autouse=True)
def _postgresql_only():
    require_postgresql()


def accept_all_at_once(api_with_token, code, tokens):
    """POST accept from len(tokens) threads at the same instant; returns the responses."""
    return run_at_once(
        [lambda token=token: api_with_token(token).post(f"/v1/invites/{code}/accept", {}) for token in tokens]
    )


def test_sixteen_anonymous_accepts_make_exactly_one_user(api_with_token, alice):
    team = make_team(alice, "alpha")
    _, code = make_invite(team)
    users_before, tokens_before = User.objects.count(), ApiToken.objects.count()

    responses = accept_all_at_once(api_with_token, code, [None] * THREADS)

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] + [410] * (THREADS - 1)
    assert all(r.json() == {"error": "invite expired or already consumed"} for r in responses if r.status_code == 410)
    winner = next(r.json() for r in responses if r.status_code == 201)
    assert User.objects.count() == users_before + 1
    assert ApiToken.objects.count() == tokens_before + 1
    assert set(Membership.objects.filter(team=team).values_list("user_id", flat=True)) == {
        alice.id,
        winner["user"]["id"],
    }
    assert Invite.objects.get().used_by_id == winner["user"]["id"]


def test_sixteen_signed_in_accepts_add_exactly_one_member(api_with_token, alice, make_user, make_token):
    team = make_team(alice, "alpha")
    _, code = make_invite(team)
    tokens = [make_token(make_user(f"user{i}", password=None)) for i in range(THREADS)]
    users_before = User.objects.count()

    responses = accept_all_at_once(api_with_token, code, tokens)

    assert sorted(r.status_code for r in responses) == [201] + [410] * (THREADS - 1)
    assert Membership.objects.filter(team=team).count() == 2
    assert User.objects.count() == users_before
