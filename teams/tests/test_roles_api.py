"""Roles over the wire: every new team endpoint (roles, ownership transfer, e-mail invites, resend,
the activity log) and the changed rights of the old ones, for the owner, an admin, a member and an
outsider: 404 for outsiders, 403 for members lacking the role."""

import pytest

from teams.models import Invite, Membership, Team
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, adam, bob, dave):
    """alice owns alpha, adam is an admin, bob and dave are plain members (carol is an outsider)."""
    team = make_team(alice, "alpha", members=[bob, dave])
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    return team


@pytest.fixture
def people(alice, adam, bob, carol):
    return {"owner": alice, "admin": adam, "member": bob, "outsider": carol}


def role_of(team, user):
    return Membership.objects.get(team=team, user=user).role


def status(api_as, user, method, path, body=None):
    api = api_as(user)
    if method == "post":
        return api.post(path, body if body is not None else {})
    return getattr(api, method)(path)


def test_members_list_names_admins(api_as, alice, alpha):
    roles = {m["display"]: m["role"] for m in api_as(alice).get("/v1/teams/alpha/members").json()["members"]}
    assert roles == {"alice": "owner", "adam": "admin", "bob": "member", "dave": "member"}


# Roles


@pytest.mark.parametrize("who, expected", [("owner", 200), ("admin", 403), ("member", 403), ("outsider", 404)])
def test_who_may_change_a_role(api_as, people, dave, alpha, who, expected):
    response = status(api_as, people[who], "post", f"/v1/teams/alpha/members/{dave.pk}/role", {"role": "admin"})
    assert response.status_code == expected, response.content
    assert role_of(alpha, dave) == ("admin" if expected == 200 else "member")
    if expected == 200:
        assert response.json()["role"] == "admin" and response.json()["user_id"] == dave.pk


def test_promote_and_demote_and_the_refusals(api_as, alice, adam, dave, alpha):
    api = api_as(alice)
    assert api.post(f"/v1/teams/alpha/members/{adam.pk}/role", {"role": "member"}).json()["role"] == "member"
    assert api.post(f"/v1/teams/alpha/members/{alice.pk}/role", {"role": "member"}).status_code == 400
    assert api.post(f"/v1/teams/alpha/members/{dave.pk}/role", {"role": "owner"}).status_code == 400
    assert api.post(f"/v1/teams/alpha/members/{dave.pk}/role", {"role": ["admin"]}).status_code == 400
    assert api.post(f"/v1/teams/alpha/members/{dave.pk}/role", {}).status_code == 400
    assert api.post(f"/v1/teams/alpha/members/{dave.pk}/role", raw="[1]").status_code == 400
    assert api.post("/v1/teams/alpha/members/nobody/role", {"role": "admin"}).status_code == 404
    assert role_of(alpha, dave) == "member" and role_of(alpha, alice) == "owner"


# Removing members


@pytest.mark.parametrize(
    "who, target, expected",
    [
        ("owner", "admin", 204),
        ("owner", "member", 204),
        ("owner", "owner", 400),
        ("admin", "member", 204),
        ("admin", "owner", 400),
        ("member", "member", 403),
        ("outsider", "member", 404),
    ],
)
def test_who_may_remove_whom(api_as, people, dave, alpha, who, target, expected):
    victim = dave if target == "member" else people[target]
    response = status(api_as, people[who], "delete", f"/v1/teams/alpha/members/{victim.pk}")
    assert response.status_code == expected, response.content
    assert Membership.objects.filter(team=alpha, user=victim).exists() == (expected != 204)


def test_an_admin_cannot_remove_another_admin(api_as, adam, dave, alpha):
    Membership.objects.filter(team=alpha, user=dave).update(role=Membership.ADMIN)
    response = api_as(adam).delete(f"/v1/teams/alpha/members/{dave.pk}")
    assert (response.status_code, response.json()) == (403, {"error": "only the team owner can remove an admin"})


# Ownership transfer


@pytest.mark.parametrize("who, expected", [("owner", 200), ("admin", 403), ("member", 403), ("outsider", 404)])
def test_who_may_offer_the_ownership(api_as, people, dave, alpha, who, expected):
    response = status(api_as, people[who], "post", "/v1/teams/alpha/transfer", {"user_id": dave.pk})
    assert response.status_code == expected, response.content
    assert Team.objects.get(pk=alpha.pk).transfer_to_id == (dave.pk if expected == 200 else None)
    if expected == 200:
        transfer = response.json()["transfer"]
        assert transfer["to"] == {"id": dave.pk, "display": "dave"} and transfer["offered_at"].endswith("Z")


def test_transfer_offer_refusals(api_as, alice, carol, alpha):
    api = api_as(alice)
    assert api.post("/v1/teams/alpha/transfer", {"user_id": carol.pk}).status_code == 404
    assert api.post("/v1/teams/alpha/transfer", {"user_id": alice.pk}).status_code == 400
    assert api.post("/v1/teams/alpha/transfer", {"user_id": 5}).status_code == 400
    assert api.post("/v1/teams/alpha/transfer", {}).status_code == 400


@pytest.mark.parametrize("who, expected", [("offered", 200), ("owner", 403), ("member", 403), ("outsider", 404)])
def test_who_may_accept_the_ownership(api_as, people, dave, alpha, who, expected):
    api_as(people["owner"]).post("/v1/teams/alpha/transfer", {"user_id": dave.pk})
    response = status(api_as, dave if who == "offered" else people[who], "post", "/v1/teams/alpha/transfer/accept")
    assert response.status_code == expected, response.content
    team = Team.objects.get(pk=alpha.pk)
    if expected == 200:
        assert response.json() == {
            "team": {
                "id": alpha.pk,
                "name": "alpha",
                "owner_id": dave.pk,
                "share_outside": False,
                "secret_scan": "flag",
                "require_mfa": False,
            }
        }
        assert team.owner == dave and role_of(alpha, people["owner"]) == "admin"
    else:
        assert team.owner == people["owner"] and team.transfer_to == dave


def test_accept_without_an_offer_is_404(api_as, bob, alpha):
    response = api_as(bob).post("/v1/teams/alpha/transfer/accept", {})
    assert (response.status_code, response.json()) == (404, {"error": "no ownership transfer is pending"})


@pytest.mark.parametrize(
    "who, expected",
    [
        ("owner", 204),
        ("offered", 204),
        ("admin", 403),
        ("member", 403),
        ("outsider", 404),
    ],
)
def test_who_may_withdraw_or_decline_an_offer(api_as, people, dave, alpha, who, expected):
    api_as(people["owner"]).post("/v1/teams/alpha/transfer", {"user_id": dave.pk})
    response = status(api_as, dave if who == "offered" else people[who], "delete", "/v1/teams/alpha/transfer")
    assert response.status_code == expected, response.content
    assert Team.objects.get(pk=alpha.pk).transfer_to_id == (None if expected == 204 else dave.pk)


# Invites: by e-mail, labelled, revoked, resent


@pytest.mark.parametrize("who, expected", [("owner", 201), ("admin", 201), ("member", 403), ("outsider", 404)])
def test_who_may_invite_by_email(api_as, people, alpha, who, expected, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = status(api_as, people[who], "post", "/v1/teams/alpha/invites", {"email": "sam@example.org"})
    assert response.status_code == expected, response.content
    assert len(mailoutbox) == (1 if expected == 201 else 0)
    if expected == 201:
        body = response.json()
        assert set(body) == {"code", "url", "expires_at", "email"} and body["email"] == "sam@example.org"
        assert body["url"] in mailoutbox[0].body and mailoutbox[0].to == ["sam@example.org"]


def test_any_member_mints_a_labelled_link(api_as, bob, alpha):
    response = api_as(bob).post("/v1/teams/alpha/invites", {"label": "  Sam,   backend "})
    assert response.status_code == 201 and response.json()["label"] == "Sam, backend"
    assert Invite.objects.get().label == "Sam, backend"


@pytest.mark.parametrize(
    "body, message",
    [
        ({"email": "not an address"}, "not an e-mail address"),
        ({"email": 7}, "email must be a string"),
        ({"label": "x" * 81}, "label is at most 80 characters"),
        ({"label": ["x"]}, "label must be a string"),
    ],
)
def test_bad_invite_fields_are_400(api_as, alice, alpha, body, message):
    response = api_as(alice).post("/v1/teams/alpha/invites", body)
    assert response.status_code == 400 and message in response.json()["error"]
    assert not Invite.objects.exists()


def test_pending_invites_show_recipient_label_maker_and_expiry(api_as, alice, bob, alpha):
    api_as(alice).post("/v1/teams/alpha/invites", {"email": "sam@example.org"})
    api_as(bob).post("/v1/teams/alpha/invites", {"label": "Kim"})
    api_as(bob).post("/v1/teams/alpha/invites", {})
    invites = api_as(bob).get("/v1/teams/alpha/invites").json()["invites"]
    assert [(i.get("email"), i.get("label"), i["created_by"]["display"]) for i in invites] == [
        (None, None, "bob"),
        (None, "Kim", "bob"),
        ("sam@example.org", None, "alice"),
    ]
    assert all(i["expires_at"].endswith("Z") for i in invites)


@pytest.mark.parametrize("who, expected", [("owner", 204), ("admin", 204), ("member", 403), ("outsider", 404)])
def test_who_may_revoke_an_invite(api_as, people, alpha, who, expected):
    invite, _ = make_invite(alpha)
    assert status(api_as, people[who], "delete", f"/v1/teams/alpha/invites/{invite.pk}").status_code == expected
    assert (Invite.objects.get().revoked_at is not None) == (expected == 204)


@pytest.mark.parametrize("who, expected", [("owner", 200), ("admin", 200), ("member", 403), ("outsider", 404)])
def test_who_may_resend_an_invite(api_as, people, alpha, who, expected, mailoutbox, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        api_as(people["owner"]).post("/v1/teams/alpha/invites", {"email": "sam@example.org"})
    with django_capture_on_commit_callbacks(execute=True):
        response = status(api_as, people[who], "post", f"/v1/teams/alpha/invites/{Invite.objects.get().pk}/resend")
    assert response.status_code == expected, response.content
    assert len(mailoutbox) == (2 if expected == 200 else 1)
    if expected == 200:
        assert response.json()["email"] == "sam@example.org"


def test_resend_refusals(api_as, alice, alpha):
    bare, _ = make_invite(alpha)
    api = api_as(alice)
    assert api.post(f"/v1/teams/alpha/invites/{bare.pk}/resend", {}).status_code == 400
    assert api.post("/v1/teams/alpha/invites/nope/resend", {}).status_code == 404
    api.post("/v1/teams/alpha/invites", {"email": "sam@example.org"})
    mailed = Invite.objects.get(email="sam@example.org")
    api.delete(f"/v1/teams/alpha/invites/{mailed.pk}")
    assert api.post(f"/v1/teams/alpha/invites/{mailed.pk}/resend", {}).status_code == 410


# The activity log


@pytest.mark.parametrize("who, expected", [("owner", 200), ("admin", 200), ("member", 200), ("outsider", 404)])
def test_who_may_read_the_activity_log(api_as, people, alpha, who, expected):
    assert status(api_as, people[who], "get", "/v1/teams/alpha/events").status_code == expected
