"""teams.selectors called directly: a viewer sees only the teams they belong to, and a team of
others answers as one that does not exist."""

from unittest import mock

import pytest

from core.errors import NotFound
from teams import selectors, services
from teams.models import Membership
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def test_team_get_for_member_answers_a_team_of_others_as_unknown(alice, carol, alpha):
    assert selectors.team_get_for_member(viewer=alice, name="alpha") == alpha
    for viewer, name in [(carol, "alpha"), (alice, "nosuchteam")]:
        with pytest.raises(NotFound) as refused:
            selectors.team_get_for_member(viewer=viewer, name=name)
        assert refused.value.message == "team not found"


def test_is_member(bob, carol, alpha):
    assert selectors.is_member(viewer=bob, team_id=alpha.pk)
    assert not selectors.is_member(viewer=carol, team_id=alpha.pk)


def test_the_viewers_teams_and_memberships(alice, bob, carol, alpha):
    beta = make_team(bob, "beta")
    make_team(carol, "gamma")
    assert list(selectors.teams_for_user(viewer=bob)) == [alpha, beta]
    assert [(m.team.name, m.role) for m in selectors.memberships_of(viewer=bob)] == [
        ("alpha", Membership.MEMBER),
        ("beta", Membership.OWNER),
    ]


def test_team_members_in_joining_order_for_members_only(alice, bob, carol, alpha):
    assert [m.user for m in selectors.team_members(viewer=bob, team=alpha)] == [alice, bob]
    with pytest.raises(NotFound):
        selectors.team_members(viewer=carol, team=alpha)


def test_team_member_get_needs_the_viewer_in_the_team(alice, bob, carol, alpha):
    assert selectors.team_member_get(viewer=alice, team=alpha, user_id=bob.id).user == bob
    assert selectors.team_member_get(viewer=carol, team=alpha, user_id=bob.id) is None
    assert selectors.team_member_get(viewer=alice, team=alpha, user_id=carol.id) is None


def test_team_pending_invites_are_the_usable_ones_newest_first_for_members_only(alice, bob, carol, alpha):
    used, used_code = make_invite(alpha)
    revoked, _ = make_invite(alpha)
    older, _ = make_invite(alpha)
    newer, _ = make_invite(alpha, actor=bob)
    services.invite_accept(code=used_code, actor=carol)
    services.invite_revoke(actor=alice, team=alpha, invite_id=revoked.pk)
    services.team_leave(actor=carol, team=alpha)

    assert list(selectors.team_pending_invites(viewer=bob, team=alpha)) == [newer, older]
    with mock.patch("django.utils.timezone.now", return_value=newer.expires_at):
        assert list(selectors.team_pending_invites(viewer=bob, team=alpha)) == []
    with pytest.raises(NotFound):
        selectors.team_pending_invites(viewer=carol, team=alpha)


def test_invite_get_for_page_finds_an_invite_whatever_its_state(alice, carol, alpha):
    invite, code = make_invite(alpha)
    services.invite_accept(code=code, actor=carol)
    assert selectors.invite_get_for_page(code=code) == invite
    for unknown in ("not-a-code", "", None):
        assert selectors.invite_get_for_page(code=unknown) is None
