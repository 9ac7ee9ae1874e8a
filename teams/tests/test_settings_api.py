"""A team's settings on the wire: PATCH /v1/teams/{name} (a hub extension). Today one setting,
`share_outside`: whether members may share the team's packets with people outside it by name, off
until the owner or an admin turns it on. (What turning it off ends: packets/tests/sharing/test_shares_rules.py.)"""

import json

import pytest

from core.testing import ApiClient
from oauth.testing import device_token
from teams.models import Membership, Team, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, adam, bob):
    """alice owns alpha, adam administers it, bob is a plain member."""
    team = make_team(alice, "alpha", members=[bob])
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    return team


def patch(api, name, body=None, raw=None):
    return api.client.patch(
        f"/v1/teams/{name}",
        data=raw if raw is not None else json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def share_outside(team) -> bool:
    return Team.objects.get(pk=team.pk).share_outside


def test_sharing_outside_is_off_by_default_and_the_team_answers_say_so(api_as, alice, bob, alpha):
    assert share_outside(alpha) is False
    created = api_as(bob).post("/v1/teams", {"name": "beta"})
    assert created.json()["team"]["share_outside"] is False
    listed = {team["name"]: team["share_outside"] for team in api_as(bob).get("/v1/teams").json()["teams"]}
    assert listed == {"alpha": False, "beta": False}


@pytest.mark.parametrize("manager", ["alice", "adam"])
def test_the_owner_or_an_admin_turns_it_on_and_off(request, api_as, bob, alpha, manager):
    api = api_as(request.getfixturevalue(manager))
    response = patch(api, "alpha", {"share_outside": True})
    assert response.status_code == 200
    assert response.json() == {
        "team": {
            "id": alpha.id,
            "name": "alpha",
            "owner_id": alpha.owner_id,
            "share_outside": True,
            "secret_scan": "flag",
            "require_mfa": False,
        },
        "without_second_factor": [],
    }
    assert share_outside(alpha) is True
    assert [team["share_outside"] for team in api_as(bob).get("/v1/teams").json()["teams"]] == [True]
    assert patch(api, "alpha", {"share_outside": False}).json()["team"]["share_outside"] is False
    assert share_outside(alpha) is False


def test_a_change_is_a_line_of_the_teams_log_and_no_change_writes_none(api_as, adam, alpha):
    api = api_as(adam)
    assert patch(api, "alpha", {"share_outside": True}).status_code == 200
    assert patch(api, "alpha", {"share_outside": True}).status_code == 200  # already on
    assert patch(api, "alpha", {}).status_code == 200  # nothing asked
    events = api.get(f"/v1/teams/alpha/events?kind={TeamEvent.SETTINGS_CHANGED}").json()["events"]
    assert [(e["actor"]["id"], e["detail"], e["summary"]) for e in events] == [
        (adam.id, {"share_outside": True}, "allowed sharing packets outside the team")
    ]


def test_a_plain_member_gets_403(api_as, bob, alpha):
    response = patch(api_as(bob), "alpha", {"share_outside": True})
    assert response.status_code == 403
    assert response.json()["error"]
    assert share_outside(alpha) is False


def test_a_non_member_gets_404_as_for_any_team_they_are_not_in(api_as, carol, alpha):
    for name in ("alpha", "nosuchteam"):
        response = patch(api_as(carol), name, {"share_outside": True})
        assert (response.status_code, response.json()) == (404, {"error": "team not found"}), name
    assert share_outside(alpha) is False


@pytest.mark.parametrize("value", ["true", 1, 0, "yes", [True], {"on": True}])
def test_a_value_that_is_not_true_or_false_is_400(api_as, alice, alpha, value):
    response = patch(api_as(alice), "alpha", {"share_outside": value})
    assert response.status_code == 400
    assert response.json()["error"].startswith("share_outside must be true or false")
    assert share_outside(alpha) is False


@pytest.mark.parametrize("raw", ["{not json", "[true]", "true"])
def test_a_body_that_is_not_a_json_object_is_400(api_as, alice, alpha, raw):
    response = patch(api_as(alice), "alpha", raw=raw)
    assert response.status_code == 400
    assert share_outside(alpha) is False


def test_a_read_only_token_changes_no_setting(client, alice, alpha):
    reader = ApiClient(device_token(client, alice, scope="read"))
    response = patch(reader, "alpha", {"share_outside": True})
    assert (response.status_code, response.json()) == (
        403,
        {"error": "this token's scope does not allow this request (it needs 'write')"},
    )
    assert share_outside(alpha) is False
