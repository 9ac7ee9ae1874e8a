"""The team endpoints of the wire API (protocol section 3), as the ltm client calls them."""

import pytest

from teams.models import Invite, Membership, Team
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    """alice owns alpha; bob is a member."""
    return make_team(alice, "alpha", members=[bob])


# Create and list


def test_create_answers_201_with_string_ids_and_makes_the_creator_owner(api_as, alice):
    response = api_as(alice).post("/v1/teams", {"name": "alpha"})
    assert response.status_code == 201
    team = Team.objects.get(name="alpha")
    assert response.json() == {
        "team": {
            "id": team.id,
            "name": "alpha",
            "owner_id": alice.id,
            "share_outside": False,
            "secret_scan": "flag",
            "require_mfa": False,
        }
    }
    assert isinstance(response.json()["team"]["id"], str)
    assert Membership.objects.get(team=team, user=alice).role == "owner"


@pytest.mark.parametrize(
    "name", ["", "Alpha", "-alpha", "_alpha", "al pha", "al.pha", "a" * 41, "ça", 7, None, ["alpha"]]
)
def test_create_refuses_a_bad_name_with_400(api_as, alice, name):
    response = api_as(alice).post("/v1/teams", {"name": name})
    assert response.status_code == 400
    assert "team name" in response.json()["error"]
    assert not Team.objects.exists()


@pytest.mark.parametrize("name", ["a", "0team", "a-b_c", "a" * 40])
def test_create_accepts_every_name_the_pattern_allows(api_as, alice, name):
    assert api_as(alice).post("/v1/teams", {"name": name}).status_code == 201


def test_create_without_a_json_object_is_400(api_as, alice):
    api = api_as(alice)
    assert api.post("/v1/teams", raw="{not json").status_code == 400
    assert api.post("/v1/teams", ["alpha"]).status_code == 400
    assert api.post("/v1/teams", {}).status_code == 400


def test_a_taken_name_is_409(api_as, alice, bob, alpha):
    response = api_as(bob).post("/v1/teams", {"name": "alpha"})
    assert response.status_code == 409
    assert response.json() == {"error": "team name 'alpha' is already taken"}


def test_team_endpoints_need_a_bearer(anon_api):
    response = anon_api.get("/v1/teams")
    assert response.status_code == 401
    assert response.json() == {"error": "missing bearer token"}


def test_list_shows_only_the_callers_teams(api_as, alice, bob, carol, alpha):
    make_team(carol, "carols")
    body = api_as(bob).get("/v1/teams").json()
    assert body == {
        "teams": [
            {
                "id": alpha.id,
                "name": "alpha",
                "owner_id": alice.id,
                "share_outside": False,
                "secret_scan": "flag",
                "require_mfa": False,
                "created_at": alpha.created_at.isoformat().replace("+00:00", "Z"),
            }
        ]
    }
    assert body["teams"][0]["created_at"].endswith("Z")
    assert api_as(carol).get("/v1/teams").json()["teams"][0]["name"] == "carols"


# Members


def test_members_lists_role_display_and_joined_at(api_as, alice, bob, alpha):
    bob.display = "Bob B."
    bob.save()
    members = api_as(bob).get("/v1/teams/alpha/members").json()["members"]
    assert [(m["user_id"], m["display"], m["role"]) for m in members] == [
        (alice.id, "alice", "owner"),
        (bob.id, "Bob B.", "member"),
    ]
    assert members[0]["email"] == alice.email
    assert all(m["joined_at"].endswith("Z") for m in members)


# 404 everywhere for non-members


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/v1/teams/alpha"),
        ("get", "/v1/teams/alpha/members"),
        ("delete", "/v1/teams/alpha/members/{bob}"),
        ("post", "/v1/teams/alpha/leave"),
        ("post", "/v1/teams/alpha/invites"),
        ("get", "/v1/teams/alpha/invites"),
        ("delete", "/v1/teams/alpha/invites/{invite}"),
    ],
)
def test_a_non_member_gets_404_like_for_a_team_that_does_not_exist(api_as, carol, bob, alpha, method, path):
    invite, _ = make_invite(alpha)
    api = api_as(carol)
    call = getattr(api, method)
    for team_path in (path, path.replace("alpha", "nosuchteam")):
        team_path = team_path.format(bob=bob.id, invite=invite.id)
        response = call(team_path, {}) if method == "post" else call(team_path)
        assert response.status_code == 404, team_path
        assert response.json() == {"error": "team not found"}
    assert Team.objects.filter(name="alpha").exists()
    assert Membership.objects.filter(team=alpha).count() == 2
    assert Invite.objects.get().revoked_at is None and Invite.objects.count() == 1


# Owner-only actions: 403 for members


def test_a_member_cannot_delete_the_team(api_as, bob, alpha):
    response = api_as(bob).delete("/v1/teams/alpha")
    assert response.status_code == 403
    assert response.json() == {"error": "only the team owner can do this"}
    assert Team.objects.filter(pk=alpha.pk).exists()


def test_a_member_cannot_remove_another_member(api_as, alice, bob, carol, alpha):
    Membership.objects.create(team=alpha, user=carol)
    assert api_as(bob).delete(f"/v1/teams/alpha/members/{carol.id}").status_code == 403
    assert api_as(bob).delete(f"/v1/teams/alpha/members/{alice.id}").status_code == 403
    assert Membership.objects.filter(team=alpha).count() == 3


def test_the_owner_removes_a_member(api_as, alice, bob, alpha):
    response = api_as(alice).delete(f"/v1/teams/alpha/members/{bob.id}")
    assert response.status_code == 204
    assert not Membership.objects.filter(team=alpha, user=bob).exists()
    assert api_as(bob).get("/v1/teams/alpha/members").status_code == 404


def test_the_owner_cannot_be_removed(api_as, alice, alpha):
    response = api_as(alice).delete(f"/v1/teams/alpha/members/{alice.id}")
    assert response.status_code == 400
    assert "owner cannot be removed" in response.json()["error"]
    assert Membership.objects.filter(team=alpha, user=alice, role="owner").exists()


def test_removing_someone_who_is_not_a_member_is_404(api_as, alice, carol, alpha):
    for user_id in (carol.id, "01NOSUCHUSER0000000000000"):
        response = api_as(alice).delete(f"/v1/teams/alpha/members/{user_id}")
        assert response.status_code == 404
        assert response.json() == {"error": "member not found"}


# Leave


def test_a_member_leaves(api_as, bob, alpha):
    api = api_as(bob)
    assert api.post("/v1/teams/alpha/leave", {}).status_code == 204
    assert not Membership.objects.filter(team=alpha, user=bob).exists()
    assert api.get("/v1/teams").json() == {"teams": []}
    assert api.post("/v1/teams/alpha/leave", {}).status_code == 404


def test_the_owner_cannot_leave(api_as, alice, alpha):
    response = api_as(alice).post("/v1/teams/alpha/leave", {})
    assert response.status_code == 400
    assert "owner cannot leave" in response.json()["error"]
    assert Membership.objects.filter(team=alpha, user=alice, role="owner").exists()


# Input read at the edge: bodies and query parameters


@pytest.mark.parametrize(
    "method, path",
    [
        ("post", "/v1/teams"),
        ("post", "/v1/teams/alpha/invites"),
        ("post", "/v1/teams/alpha/transfer"),
        ("post", "/v1/teams/alpha/members/{bob}/role"),
        ("post", "/v1/invites/{code}/accept"),
    ],
)
@pytest.mark.parametrize("raw", ["[]", '"alpha"', "7"])
def test_a_body_that_is_not_a_json_object_is_400(api_as, alice, bob, alpha, method, path, raw):
    _, code = make_invite(alpha)
    response = api_as(alice).post(path.format(bob=bob.id, code=code), raw=raw)
    assert (response.status_code, response.json()) == (400, {"error": "the request body must be a JSON object"})


@pytest.mark.parametrize(
    "path, body",
    [
        ("/v1/teams/alpha/invites", {"email": 7}),
        ("/v1/teams/alpha/transfer", {"user_id": 7}),
        ("/v1/teams/alpha/members/{bob}/role", {"role": "owner"}),
    ],
)
def test_an_outsider_with_a_bad_body_gets_the_404_first(api_as, bob, carol, alpha, path, body):
    response = api_as(carol).post(path.format(bob=bob.id), body)
    assert (response.status_code, response.json()) == (404, {"error": "team not found"})


@pytest.mark.parametrize(
    "path, body, message",
    [
        ("/v1/teams/alpha/transfer", {"user_id": ["x"]}, "user_id must be a string; got ['x']"),
        ("/v1/teams/alpha/transfer", {"user_id": None}, "user_id is required"),
        ("/v1/teams/alpha/members/{bob}/role", {"role": 1}, 'role must be "admin" or "member"'),
        ("/v1/teams/alpha/members/{bob}/role", {"role": "Admin"}, "got 'Admin'"),
    ],
)
def test_a_field_of_the_wrong_type_or_value_is_named(api_as, alice, bob, alpha, path, body, message):
    response = api_as(alice).post(path.format(bob=bob.id), body)
    assert response.status_code == 400 and message in response.json()["error"]
    assert Membership.objects.get(team=alpha, user=bob).role == "member"


def test_empty_or_null_optional_fields_are_absent(api_as, alice, alpha):
    response = api_as(alice).post("/v1/teams/alpha/invites", {"email": "", "label": None, "unknown": 1})
    assert response.status_code == 201 and set(response.json()) == {"code", "url", "expires_at"}
    _, code = make_invite(alpha)
    joined = api_as(alice).client.post(
        f"/v1/invites/{code}/accept", '{"display": null}', content_type="application/json"
    )
    assert joined.status_code == 201 and "token" in joined.json()


def test_a_new_users_display_of_the_wrong_type_is_400_and_spends_nothing(anon_api, alpha):
    invite, code = make_invite(alpha)
    response = anon_api.post(f"/v1/invites/{code}/accept", {"display": 42})
    assert (response.status_code, response.json()) == (400, {"error": "display must be a string; got 42"})
    invite.refresh_from_db()
    assert invite.used_by is None and Membership.objects.filter(team=alpha).count() == 2


@pytest.mark.parametrize(
    "query, count",
    [("limit=%2B2", 2), ("limit=02", 2), ("limit=", 3), ("before=", 3), ("kind=", 3), ("limit=x&limit=1", 1)],
)
def test_events_parameters_read_as_go_reads_numbers_and_empty_as_absent(api_as, alice, alpha, query, count):
    api = api_as(alice)
    for name in ("one", "two", "three"):
        api.post("/v1/teams/alpha/invites", {"label": name})
    response = api.get(f"/v1/teams/alpha/events?{query}")
    assert response.status_code == 200, response.content
    assert len(response.json()["events"]) == count


@pytest.mark.parametrize(
    "query, message",
    [
        ("limit=1_0", "limit must be a whole number from 1 to 200; got '1_0'"),
        ("limit=%EF%BC%95", "limit must be a whole number from 1 to 200; got '５'"),
        ("limit=%205", "limit must be a whole number from 1 to 200; got ' 5'"),
        ("before=%D9%A1", "before must be an event id (a positive whole number); got '١'"),
        ("before=5.0", "before must be an event id (a positive whole number); got '5.0'"),
        ("kind=member.joined%20", "unknown kind 'member.joined '; one of: "),
    ],
)
def test_bad_events_parameters_are_400_with_the_value(api_as, alice, alpha, query, message):
    response = api_as(alice).get(f"/v1/teams/alpha/events?{query}")
    assert response.status_code == 400 and response.json()["error"].startswith(message)
