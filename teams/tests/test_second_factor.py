"""A team that requires a second factor (Team.require_mfa): set by its owner and admins through
the API and the dashboard, with the members not yet compliant named. What it closes (the team's
packets) is packets/tests/test_second_factor_rule.py."""

import pytest

from accounts.services import api_token_create
from accounts.testing import add_totp
from core.testing import ApiClient, signed_in
from teams.models import Membership, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob, adam):
    team = make_team(alice, members=[bob, adam])
    Membership.objects.filter(team=team, user=adam).update(role=Membership.ADMIN)
    return team


def require(api, name="alpha", on=True):
    return api.client.patch(
        f"/v1/teams/{name}",
        data=f'{{"require_mfa": {"true" if on else "false"}}}',
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def token(user, *, second_factor):
    return ApiClient(api_token_create(actor=user, name="t", second_factor=second_factor)[1])


def test_the_owner_turns_it_on_and_hears_who_is_not_compliant(alice, bob, adam, alpha):
    add_totp(alice)
    add_totp(adam)
    answer = require(token(alice, second_factor=True))
    assert answer.status_code == 200, answer.content
    assert answer.json()["team"]["require_mfa"] is True
    assert answer.json()["without_second_factor"] == [{"user_id": bob.pk, "display": bob.display_name}]
    line = TeamEvent.objects.filter(team=alpha, kind=TeamEvent.SETTINGS_CHANGED).get()
    assert line.detail == {"require_mfa": True} and line.summary == "required a second factor of every member"
    off = require(token(adam, second_factor=True), on=False)
    assert off.status_code == 200 and off.json()["team"]["require_mfa"] is False
    assert off.json()["without_second_factor"] == []


def test_a_plain_member_may_not_and_an_outsider_finds_no_team(bob, carol, alpha):
    assert require(token(bob, second_factor=False)).status_code == 403
    assert require(token(carol, second_factor=False)).status_code == 404


def test_require_mfa_must_be_a_boolean(alice, alpha):
    api = token(alice, second_factor=False)
    answer = api.client.patch(
        "/v1/teams/alpha",
        data='{"require_mfa": "yes"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )
    assert answer.status_code == 400 and "require_mfa" in answer.json()["error"]


def test_the_team_page_turns_it_on_and_names_who_is_not_compliant(alice, bob, adam, alpha):
    add_totp(adam)
    browser = signed_in(alice)
    answer = browser.post("/teams/alpha/second-factor/require", follow=True)
    body = answer.content.decode()
    assert "alpha now requires a second factor. Not yet compliant:" in body
    assert "Bob" in body or "bob" in body
    assert 'id="not-compliant"' in body and 'id="require-mfa-state">required' in body
    alpha.refresh_from_db()
    assert alpha.require_mfa
    browser.post("/teams/alpha/second-factor/stop")
    alpha.refresh_from_db()
    assert not alpha.require_mfa


def test_a_plain_member_cannot_turn_it_on_from_the_page(bob, alpha):
    signed_in(bob).post("/teams/alpha/second-factor/require")
    alpha.refresh_from_db()
    assert not alpha.require_mfa
