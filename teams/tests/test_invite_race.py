"""Many concurrent accepts of one invite: exactly one wins, the others get 410 and leave nothing.

Real threads, each with its own database connection, released together by a barrier. SQLite
serialises writers, so the race only means something on PostgreSQL (DATABASE_URL in CI).
"""

import os
import threading

import pytest
from django.db import connection

from accounts.models import ApiToken, User
from teams.models import Invite, Membership
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 16


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        reason = (
            "concurrency test needs PostgreSQL (SQLite serialises writers, so there is no race to "
            "test); run with DATABASE_URL=postgres://..., as CI does"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)  # CI runs on PostgreSQL: a skip there would hide a missing DATABASE_URL
        pytest.skip(reason)


def accept_all_at_once(api_with_token, code, tokens):
    """POST accept from len(tokens) threads at the same instant; returns the responses."""
    barrier = threading.Barrier(len(tokens))
    responses = [None] * len(tokens)

    def accept(index, token):
        try:
            barrier.wait(timeout=30)
            responses[index] = api_with_token(token).post(f"/v1/invites/{code}/accept", {})
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=accept, args=(i, token)) for i, token in enumerate(tokens)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return responses


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
    assert set(Membership.objects.filter(team=team).values_list("user_id", flat=True)) == {alice.id, winner["user"]["id"]}
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
