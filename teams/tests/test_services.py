"""teams.services called directly: each change to teams, memberships and invites with its
refusals, and deleting an account that owns teams (accounts.services.user_delete)."""

import re
from datetime import timedelta
from unittest import mock

import pytest

from accounts.models import ApiToken, User
from accounts.services import user_delete
from core.errors import BadRequest, Conflict, Forbidden, Gone, NotFound
from core.testing import refusal
from teams import services
from teams.models import Invite, Membership, Team, invite_code_hash
from teams.services.invites import new_invite_code
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol(make_user):
    return make_user("carol", password=None)


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def roles(team):
    return dict(Membership.objects.filter(team=team).values_list("user__username", "role"))


def test_transfer_is_offered_then_accepted_and_the_old_owner_becomes_an_admin(alice, bob, alpha):
    services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=bob.id)
    assert Team.objects.get(pk=alpha.pk).owner == alice  # nothing changes before bob accepts
    assert roles(alpha) == {"alice": "owner", "bob": "member"}

    services.team_transfer_accept(actor=bob, team=alpha)
    team = Team.objects.get(pk=alpha.pk)
    assert (team.owner, team.transfer_to) == (bob, None)
    assert roles(alpha) == {"alice": "admin", "bob": "owner"}
    # The old owner may now leave; the new one may not.
    services.team_leave(actor=alice, team=alpha)
    with pytest.raises(BadRequest):
        services.team_leave(actor=bob, team=alpha)


def test_only_the_owner_offers_and_only_the_member_offered_accepts(alice, bob, carol, alpha):
    Membership.objects.create(team=alpha, user=carol, role=Membership.ADMIN)
    for actor in (bob, carol):
        assert refusal(
            Forbidden, lambda: services.team_transfer_offer(actor=actor, team=alpha, new_owner_id=bob.id)
        ) == ("only the team owner can do this")
    assert refusal(NotFound, lambda: services.team_transfer_accept(actor=bob, team=alpha)) == (
        "no ownership transfer is pending"
    )
    services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=bob.id)
    assert refusal(Forbidden, lambda: services.team_transfer_accept(actor=carol, team=alpha)) == (
        "the ownership of this team was offered to someone else"
    )
    assert refusal(Forbidden, lambda: services.team_transfer_cancel(actor=carol, team=alpha)).startswith("only the")
    assert roles(alpha) == {"alice": "owner", "bob": "member", "carol": "admin"}


def test_an_offer_ends_when_the_member_offered_leaves_or_declines(alice, bob, alpha):
    services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=bob.id)
    services.team_transfer_cancel(actor=bob, team=alpha)
    assert Team.objects.get(pk=alpha.pk).transfer_to is None
    services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=bob.id)
    services.team_leave(actor=bob, team=alpha)
    assert Team.objects.get(pk=alpha.pk).transfer_to is None


def test_transfer_to_a_non_member_is_404(alice, carol, alpha):
    with pytest.raises(NotFound):
        services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=carol.id)
    assert Team.objects.get(pk=alpha.pk).owner == alice


def test_a_non_member_actor_gets_404_from_every_service(carol, bob, alpha):
    calls = [
        lambda: services.team_delete(actor=carol, team=alpha),
        lambda: services.membership_remove(actor=carol, team=alpha, user_id=bob.id),
        lambda: services.team_leave(actor=carol, team=alpha),
        lambda: services.team_transfer_offer(actor=carol, team=alpha, new_owner_id=carol.id),
        lambda: services.team_transfer_accept(actor=carol, team=alpha),
        lambda: services.team_transfer_cancel(actor=carol, team=alpha),
        lambda: services.membership_set_role(actor=carol, team=alpha, user_id=bob.id, role="admin"),
        lambda: services.invite_create(actor=carol, team=alpha),
        lambda: services.invite_create(actor=carol, team=alpha, email="x@example.org", link=str),
        lambda: services.invite_revoke(actor=carol, team=alpha, invite_id="x"),
        lambda: services.invite_resend(actor=carol, team=alpha, invite_id="x", link=str),
    ]
    for call in calls:
        with pytest.raises(NotFound):
            call()
    assert roles(alpha) == {"alice": "owner", "bob": "member"}


def test_the_creator_of_a_team_is_its_owner_member(carol):
    team = services.team_create(actor=carol, name="solo")
    assert team.owner == carol
    assert roles(team) == {"carol": "owner"}


@pytest.mark.parametrize(("display", "expected"), [(None, r"user-[0-9a-f]{6}"), ("Ada Lovelace", r"ada-lovelace")])
def test_a_joiner_without_an_account_gets_a_name_that_does_not_read_like_a_role(alice, alpha, display, expected):
    _, code = services.invite_create(actor=alice, team=alpha)
    user, _, token = services.invite_accept(code=code, display=display)
    assert re.fullmatch(expected, user.username), user.username
    assert token.startswith("ltm_")


# Teams and memberships


def test_team_create_refuses_a_bad_name_and_a_taken_one(alice, bob, alpha):
    assert refusal(BadRequest, lambda: services.team_create(actor=bob, name="Alpha!")) == (
        "a team name is 1 to 40 characters: lower-case letters, digits, '-' and '_', starting with a letter or digit"
    )
    assert (
        refusal(Conflict, lambda: services.team_create(actor=bob, name="alpha")) == "team name 'alpha' is already taken"
    )
    assert list(Team.objects.values_list("name", "owner__username")) == [("alpha", "alice")]


def test_team_delete_takes_the_memberships_and_invites_and_only_the_owner_may(alice, bob, alpha):
    make_invite(alpha)
    assert refusal(Forbidden, lambda: services.team_delete(actor=bob, team=alpha)) == "only the team owner can do this"
    assert Team.objects.filter(pk=alpha.pk).exists()

    services.team_delete(actor=alice, team=alpha)
    assert not Team.objects.exists()
    assert not Membership.objects.exists() and not Invite.objects.exists()


def test_membership_remove_by_the_owner_and_its_refusals(alice, bob, carol, alpha):
    assert refusal(Forbidden, lambda: services.membership_remove(actor=bob, team=alpha, user_id=alice.id)) == (
        "only the team owner or an admin can do this"
    )
    assert refusal(NotFound, lambda: services.membership_remove(actor=alice, team=alpha, user_id=carol.id)) == (
        "member not found"
    )
    assert refusal(BadRequest, lambda: services.membership_remove(actor=alice, team=alpha, user_id=alice.id)) == (
        "the owner cannot be removed; transfer ownership or delete the team"
    )
    assert roles(alpha) == {"alice": "owner", "bob": "member"}

    services.membership_remove(actor=alice, team=alpha, user_id=bob.id)
    assert roles(alpha) == {"alice": "owner"}


def test_team_leave_by_a_member_but_not_the_owner(alice, bob, alpha):
    assert refusal(BadRequest, lambda: services.team_leave(actor=alice, team=alpha)) == (
        "the owner cannot leave the team; transfer ownership or delete the team"
    )
    services.team_leave(actor=bob, team=alpha)
    assert roles(alpha) == {"alice": "owner"}


def test_transfer_to_oneself_is_refused(alice, alpha):
    assert refusal(
        BadRequest, lambda: services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=alice.id)
    ) == ("you already own this team")
    assert Team.objects.get(pk=alpha.pk).transfer_to is None


def test_an_admin_removes_plain_members_but_not_admins_or_the_owner(alice, bob, carol, make_user, alpha):
    dave = make_user("dave")
    Membership.objects.create(team=alpha, user=carol, role=Membership.ADMIN)
    Membership.objects.create(team=alpha, user=dave, role=Membership.ADMIN)
    assert refusal(Forbidden, lambda: services.membership_remove(actor=carol, team=alpha, user_id=dave.id)) == (
        "only the team owner can remove an admin"
    )
    assert refusal(
        BadRequest, lambda: services.membership_remove(actor=carol, team=alpha, user_id=alice.id)
    ).startswith("the owner cannot be removed")
    services.membership_remove(actor=carol, team=alpha, user_id=bob.id)
    services.membership_remove(actor=alice, team=alpha, user_id=dave.id)  # the owner removes admins
    assert roles(alpha) == {"alice": "owner", "carol": "admin"}


def test_the_owner_promotes_and_demotes_and_nobody_else_may(alice, bob, carol, alpha):
    Membership.objects.create(team=alpha, user=carol, role=Membership.ADMIN)
    assert services.membership_set_role(actor=alice, team=alpha, user_id=bob.id, role="admin").role == "admin"
    assert roles(alpha)["bob"] == "admin"
    services.membership_set_role(actor=alice, team=alpha, user_id=bob.id, role="member")
    assert roles(alpha)["bob"] == "member"
    for actor in (bob, carol):
        assert refusal(
            Forbidden, lambda: services.membership_set_role(actor=actor, team=alpha, user_id=bob.id, role="admin")
        ) == ("only the team owner can do this")
    for role in ("owner", "boss", None, 3):
        with pytest.raises(BadRequest):
            services.membership_set_role(actor=alice, team=alpha, user_id=bob.id, role=role)
    assert refusal(
        BadRequest, lambda: services.membership_set_role(actor=alice, team=alpha, user_id=alice.id, role="member")
    ) == ("the owner's role cannot change; transfer ownership instead")
    assert roles(alpha) == {"alice": "owner", "bob": "member", "carol": "admin"}


# Invites


def test_new_invite_code_is_48_hex_characters_and_never_repeats():
    codes = {new_invite_code() for _ in range(3)}
    assert len(codes) == 3 and all(re.fullmatch(r"[0-9a-f]{48}", code) for code in codes)


def test_invite_create_by_any_member_stores_only_the_codes_hash(bob, alpha):
    invite, code = services.invite_create(actor=bob, team=alpha)
    stored = Invite.objects.get(pk=invite.pk)
    assert (stored.team, stored.created_by) == (alpha, bob)
    assert re.fullmatch(r"[0-9a-f]{48}", code) and stored.code_hash == invite_code_hash(code)
    assert stored.expires_at - stored.created_at == timedelta(days=7)


def test_invite_revoke_by_the_owner_and_again_changes_nothing(alice, bob, alpha):
    invite, _ = make_invite(alpha, actor=bob)
    assert refusal(Forbidden, lambda: services.invite_revoke(actor=bob, team=alpha, invite_id=invite.pk)) == (
        "only the team owner or an admin can do this"
    )
    revoked = services.invite_revoke(actor=alice, team=alpha, invite_id=invite.pk).revoked_at
    assert revoked is not None
    assert services.invite_revoke(actor=alice, team=alpha, invite_id=invite.pk).revoked_at == revoked


def test_invite_revoke_refuses_a_used_invite_and_one_of_another_team(alice, carol, alpha):
    invite, code = make_invite(alpha)
    services.invite_accept(code=code, actor=carol)
    assert refusal(Conflict, lambda: services.invite_revoke(actor=alice, team=alpha, invite_id=invite.pk)) == (
        "this invite was already used; remove the member instead"
    )
    beta = make_team(carol, "beta")
    theirs, _ = make_invite(beta)
    assert refusal(NotFound, lambda: services.invite_revoke(actor=alice, team=alpha, invite_id=theirs.pk)) == (
        "invite not found"
    )
    assert Invite.objects.get(pk=theirs.pk).revoked_at is None


def test_invite_accept_signed_in_joins_and_spends_the_invite_once(alpha, carol, make_user):
    invite, code = make_invite(alpha)
    user, team, token = services.invite_accept(code=code, actor=carol)
    assert (user, team, token) == (carol, alpha, None)
    assert roles(alpha)["carol"] == "member"
    stored = Invite.objects.get(pk=invite.pk)
    assert stored.used_by == carol and stored.used_at is not None

    dave = make_user("dave")
    assert refusal(Gone, lambda: services.invite_accept(code=code, actor=dave)) == "invite expired or already consumed"
    assert refusal(Gone, lambda: services.invite_accept(code=code)) == "invite expired or already consumed"
    assert "dave" not in roles(alpha) and User.objects.count() == 4


def test_invite_accept_by_a_member_succeeds_without_spending_the_invite(bob, alpha):
    invite, code = make_invite(alpha)
    assert services.invite_accept(code=code, actor=bob) == (bob, alpha, None)
    assert Invite.objects.get(pk=invite.pk).used_at is None


def test_invite_accept_without_an_account_makes_a_user_with_a_join_token(alpha):
    _, code = make_invite(alpha)
    user, team, token = services.invite_accept(code=code, display="  Dana   Scully ")
    assert team == alpha and roles(alpha)[user.username] == "member"
    assert (user.username, user.display, user.email) == ("dana-scully", "Dana Scully", "")
    assert not user.has_usable_password()
    assert ApiToken.objects.get(user=user).name == "ltm join"
    assert token.startswith("ltm_")


@pytest.mark.parametrize(
    ("display", "message"),
    [(42, "display must be a string"), ("x" * 81, "display is at most 80 characters")],
)
def test_invite_accept_refuses_a_bad_display_and_keeps_the_invite(alpha, display, message):
    invite, code = make_invite(alpha)
    assert refusal(BadRequest, lambda: services.invite_accept(code=code, display=display)) == message
    assert Invite.objects.get(pk=invite.pk).used_at is None and User.objects.count() == 2


@pytest.mark.parametrize("code", [None, "", "not-a-code"])
def test_invite_accept_of_no_code_or_an_unknown_one_is_gone(alpha, code):
    assert refusal(Gone, lambda: services.invite_accept(code=code)) == "invite expired or already consumed"


def test_invite_accept_of_an_expired_or_revoked_invite_is_gone(alice, carol, alpha):
    expired, expired_code = make_invite(alpha)
    revoked, revoked_code = make_invite(alpha)
    services.invite_revoke(actor=alice, team=alpha, invite_id=revoked.pk)
    with mock.patch("django.utils.timezone.now", return_value=expired.expires_at):
        assert refusal(Gone, lambda: services.invite_accept(code=expired_code, actor=carol))
    assert refusal(Gone, lambda: services.invite_accept(code=revoked_code, actor=carol))
    assert "carol" not in roles(alpha)


# Deleting an account that owns teams (accounts.services.user_delete)


def test_user_delete_is_refused_while_the_user_owns_teams_and_names_them(alice, bob, alpha):
    make_team(alice, "beta")
    assert refusal(Conflict, lambda: user_delete(actor=alice)) == (
        "transfer or delete the teams you own before deleting your account: alpha, beta"
    )
    assert User.objects.filter(pk=alice.pk).exists()
    assert roles(alpha) == {"alice": "owner", "bob": "member"}


def test_user_delete_of_a_member_leaves_the_team(alice, bob, alpha):
    user_delete(actor=bob)
    assert roles(alpha) == {"alice": "owner"}
    assert Team.objects.get(pk=alpha.pk).owner == alice


@pytest.mark.parametrize("display", ["Dana\u202eScully", "Dana\x07"])
def test_invite_accept_refuses_a_display_with_control_or_bidi_characters(alpha, display):
    invite, code = make_invite(alpha)
    assert refusal(BadRequest, lambda: services.invite_accept(code=code, display=display)) == (
        "display may not contain control or formatting characters"
    )
    assert Invite.objects.get(pk=invite.pk).used_at is None
