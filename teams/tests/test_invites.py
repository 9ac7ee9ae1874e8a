"""Invites over the wire (protocol section 4): minting, accepting with and without a bearer,
expiry, single use, revocation and the pending list."""

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from accounts.models import ApiToken, User
from teams.models import Invite, Membership
from teams.services import invite_revoke
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db

GONE = {"error": "invite expired or already consumed"}


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def at(moment):
    """Move the clock of the hub to `moment`."""
    return mock.patch("django.utils.timezone.now", return_value=moment)


# Minting


def test_any_member_mints_an_invite_with_192_bits_and_a_7_day_expiry(api_as, bob, alpha):
    before = timezone.now()
    response = api_as(bob).post("/v1/teams/alpha/invites", {})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"code", "url", "expires_at"}
    code = body["code"]
    assert re.fullmatch(r"[0-9a-f]{48}", code), code  # 48 hex characters = 192 bits
    assert body["url"] == f"http://testserver/v1/invites/{code}"
    invite = Invite.objects.get()
    assert invite.created_by == bob and invite.team == alpha
    assert invite.expires_at - invite.created_at == timedelta(days=7)
    assert invite.created_at >= before
    assert body["expires_at"] == invite.expires_at.isoformat().replace("+00:00", "Z")


def test_only_the_hash_of_the_code_is_stored(api_as, alice, alpha):
    code = api_as(alice).post("/v1/teams/alpha/invites", {}).json()["code"]
    invite = Invite.objects.get()
    assert code not in {invite.code_hash, invite.id}
    assert len(invite.code_hash) == 64


def test_two_invites_have_different_codes(api_as, alice, alpha):
    api = api_as(alice)
    codes = {api.post("/v1/teams/alpha/invites", {}).json()["code"] for _ in range(3)}
    assert len(codes) == 3


def test_the_url_uses_the_configured_external_url(api_as, alice, alpha, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    body = api_as(alice).post("/v1/teams/alpha/invites", {}).json()
    assert body["url"] == f"https://hub.example.org/v1/invites/{body['code']}"


def test_forwarded_headers_are_ignored_unless_the_proxy_is_trusted(api_as, alice, alpha):
    body = (
        api_as(alice)
        .post("/v1/teams/alpha/invites", {}, HTTP_X_FORWARDED_HOST="evil.example", HTTP_X_FORWARDED_PROTO="https")
        .json()
    )
    assert body["url"].startswith("http://testserver/v1/invites/")


# Accepting without a bearer: a new user, token and membership


def test_accept_without_bearer_creates_a_user_a_token_and_the_membership(anon_api, api_with_token, alice, alpha):
    _, code = make_invite(alpha)
    response = anon_api.post(f"/v1/invites/{code}/accept", {"display": "Dana Doe"})

    assert response.status_code == 201
    body = response.json()
    user = User.objects.get(pk=body["user"]["id"])
    assert body["user"] == {"id": user.id, "display": "Dana Doe"}
    assert body["team"] == {"id": alpha.id, "name": "alpha"}
    assert body["token"].startswith("ltm_")
    assert not user.has_usable_password()
    assert user.username == "dana-doe"
    assert Membership.objects.get(team=alpha, user=user).role == "member"
    invite = Invite.objects.get()
    assert invite.used_by == user and invite.used_at is not None

    # The token works at once: the new member lists the team's packets.
    newcomer = api_with_token(body["token"])
    assert newcomer.get("/v1/packets?team=alpha").status_code == 200
    assert [t["name"] for t in newcomer.get("/v1/teams").json()["teams"]] == ["alpha"]


def test_accept_without_display_still_gets_a_unique_username(anon_api, alpha):
    codes = [make_invite(alpha)[1] for _ in range(2)]
    ids = [anon_api.post(f"/v1/invites/{code}/accept", {}).json()["user"]["id"] for code in codes]
    usernames = {User.objects.get(pk=user_id).username for user_id in ids}
    assert len(usernames) == 2


def test_accept_with_a_display_someone_has_already_gets_a_distinct_username(anon_api, alpha, make_user):
    make_user("alice-two")
    _, code = make_invite(alpha)
    user_id = anon_api.post(f"/v1/invites/{code}/accept", {"display": "Alice Two"}).json()["user"]["id"]
    assert User.objects.get(pk=user_id).username.startswith("alice-two-")


@pytest.mark.parametrize("display", [7, ["x"], "x" * 81])
def test_a_bad_display_is_400_and_keeps_the_invite(anon_api, alpha, display):
    _, code = make_invite(alpha)
    response = anon_api.post(f"/v1/invites/{code}/accept", {"display": display})
    assert response.status_code == 400
    assert "display" in response.json()["error"]
    assert Invite.objects.get().used_at is None


def test_accept_with_a_body_that_is_not_an_object_is_400(anon_api, alpha):
    _, code = make_invite(alpha)
    assert anon_api.post(f"/v1/invites/{code}/accept", raw="[1]").status_code == 400
    assert anon_api.post(f"/v1/invites/{code}/accept", raw="{oops").status_code == 400
    assert Invite.objects.get().used_at is None


def test_accept_with_an_empty_body_works(anon_api, alpha):
    _, code = make_invite(alpha)
    assert anon_api.post(f"/v1/invites/{code}/accept", raw="").status_code == 201


# Accepting with a bearer


def test_accept_with_a_bearer_adds_the_caller(api_as, carol, alpha):
    _, code = make_invite(alpha)
    users_before = User.objects.count()
    tokens_before = ApiToken.objects.count()
    api = api_as(carol)

    response = api.post(f"/v1/invites/{code}/accept", {})

    assert response.status_code == 201
    assert response.json() == {
        "user": {"id": carol.id, "display": "carol"},
        "team": {"id": alpha.id, "name": "alpha"},
    }
    assert Membership.objects.get(team=alpha, user=carol).role == "member"
    assert User.objects.count() == users_before
    assert ApiToken.objects.count() == tokens_before + 1  # only api_as's own token
    assert Invite.objects.get().used_by == carol


@pytest.mark.parametrize("kind", ["unknown", "revoked"])
def test_an_invalid_bearer_counts_as_no_bearer(api_with_token, carol, make_token, alpha, kind):
    from accounts.services import api_token_revoke

    token = "ltm_not-a-token-of-this-hub"
    if kind == "revoked":
        token = make_token(carol)
        api_token_revoke(actor=carol, token_id=ApiToken.objects.get(user=carol).id)
    _, code = make_invite(alpha)

    response = api_with_token(token).post(f"/v1/invites/{code}/accept", {})

    assert response.status_code == 201
    body = response.json()
    assert body["user"]["id"] != carol.id
    assert "token" in body
    assert not Membership.objects.filter(team=alpha, user=carol).exists()


def test_a_member_accepting_again_succeeds_without_spending_the_invite(api_as, bob, carol, alpha):
    _, code = make_invite(alpha)
    response = api_as(bob).post(f"/v1/invites/{code}/accept", {})
    assert response.status_code == 201
    assert response.json()["team"]["name"] == "alpha"
    assert Membership.objects.filter(team=alpha, user=bob).count() == 1
    assert Invite.objects.get().used_at is None
    # ...so it still works for the person it was meant for.
    assert api_as(carol).post(f"/v1/invites/{code}/accept", {}).status_code == 201


# Single use, expiry, unknown codes


def test_a_used_code_is_410(api_as, anon_api, carol, alpha):
    _, code = make_invite(alpha)
    assert anon_api.post(f"/v1/invites/{code}/accept", {}).status_code == 201
    users = User.objects.count()
    for client in (anon_api, api_as(carol)):
        response = client.post(f"/v1/invites/{code}/accept", {})
        assert response.status_code == 410
        assert response.json() == GONE
    assert User.objects.count() == users
    assert not Membership.objects.filter(team=alpha, user=carol).exists()


@pytest.mark.parametrize("code", ["0" * 48, "nope", "x" * 300])
def test_an_unknown_code_is_410(anon_api, alpha, code):
    response = anon_api.post(f"/v1/invites/{code}/accept", {})
    assert response.status_code == 410
    assert response.json() == GONE


def test_an_invite_is_valid_at_6_days_23_hours(anon_api, alpha):
    invite, code = make_invite(alpha)
    with at(invite.created_at + timedelta(days=6, hours=23)):
        response = anon_api.post(f"/v1/invites/{code}/accept", {})
    assert response.status_code == 201


def test_an_invite_is_gone_at_7_days(anon_api, alpha):
    invite, code = make_invite(alpha)
    users = User.objects.count()
    with at(invite.created_at + timedelta(days=7)):
        response = anon_api.post(f"/v1/invites/{code}/accept", {})
    assert response.status_code == 410
    assert response.json() == GONE
    assert User.objects.count() == users
    assert Membership.objects.filter(team=alpha).count() == 2


def test_an_invite_of_a_deleted_team_is_410(api_as, anon_api, alice, alpha):
    _, code = make_invite(alpha)
    assert api_as(alice).delete("/v1/teams/alpha").status_code == 204
    users = User.objects.count()
    response = anon_api.post(f"/v1/invites/{code}/accept", {})
    assert (response.status_code, response.json()) == (410, GONE)
    assert User.objects.count() == users


# Revoking and the pending list


def test_the_owner_revokes_an_unused_invite_and_it_stops_working(api_as, anon_api, alice, alpha):
    invite, code = make_invite(alpha)
    response = api_as(alice).delete(f"/v1/teams/alpha/invites/{invite.id}")
    assert response.status_code == 204
    assert Invite.objects.get().revoked_at is not None
    assert anon_api.post(f"/v1/invites/{code}/accept", {}).json() == GONE
    # Revoking twice changes nothing.
    assert api_as(alice).delete(f"/v1/teams/alpha/invites/{invite.id}").status_code == 204


def test_a_member_cannot_revoke(api_as, bob, alpha):
    invite, _ = make_invite(alpha, actor=bob)
    response = api_as(bob).delete(f"/v1/teams/alpha/invites/{invite.id}")
    assert (response.status_code, response.json()) == (403, {"error": "only the team owner or an admin can do this"})
    assert Invite.objects.get().revoked_at is None


def test_a_used_invite_cannot_be_revoked(anon_api, alice, alpha):
    from core.errors import Conflict

    invite, code = make_invite(alpha)
    anon_api.post(f"/v1/invites/{code}/accept", {})
    with pytest.raises(Conflict):
        invite_revoke(actor=alice, team=alpha, invite_id=invite.id)
    assert Invite.objects.get().revoked_at is None


def test_an_invite_of_another_team_is_404_to_revoke(api_as, alice, carol, alpha):
    other = make_team(carol, "other")
    invite, _ = make_invite(other)
    assert api_as(alice).delete(f"/v1/teams/alpha/invites/{invite.id}").status_code == 404
    assert Invite.objects.get().revoked_at is None


def test_members_see_pending_invites_with_expiry_and_creator(api_as, anon_api, alice, bob, alpha):
    pending, _ = make_invite(alpha, actor=bob)
    _, used_code = make_invite(alpha)
    anon_api.post(f"/v1/invites/{used_code}/accept", {})
    revoked, _ = make_invite(alpha)
    invite_revoke(actor=alice, team=alpha, invite_id=revoked.id)
    expired, _ = make_invite(alpha)
    Invite.objects.filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(seconds=1))

    body = api_as(bob).get("/v1/teams/alpha/invites").json()

    assert body == {
        "invites": [
            {
                "id": pending.id,
                "created_by": {"id": bob.id, "display": "bob"},
                "created_at": pending.created_at.isoformat().replace("+00:00", "Z"),
                "expires_at": pending.expires_at.isoformat().replace("+00:00", "Z"),
            }
        ]
    }


def test_accept_with_a_read_only_token_is_403_and_keeps_the_invite(client, api_with_token, carol, alpha):
    from oauth.testing import device_token

    _, code = make_invite(alpha)
    read_only = device_token(client, carol, scope="read")  # `ltm auth` granted only "read"
    users = User.objects.count()

    response = api_with_token(read_only).post(f"/v1/invites/{code}/accept", {})

    assert response.status_code == 403
    assert response.json() == {"error": "this token's scope does not allow this request (it needs 'write')"}
    assert Invite.objects.get().used_at is None
    assert not Membership.objects.filter(team=alpha, user=carol).exists()
    assert User.objects.count() == users
