"""Rules of the team services that the wire API does not expose (ownership transfer) or that
every caller relies on (the role checks)."""

import pytest

from core.errors import BadRequest, Forbidden, NotFound
from teams import services
from teams.models import Membership, Team
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol(make_user):
    return make_user("carol", password=None)


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def roles(team):
    return dict(Membership.objects.filter(team=team).values_list("user__username", "role"))


def test_transfer_makes_the_member_owner_and_the_old_owner_a_member(alice, bob, alpha):
    services.team_transfer(actor=alice, team=alpha, new_owner_id=bob.id)
    assert Team.objects.get(pk=alpha.pk).owner == bob
    assert roles(alpha) == {"alice": "member", "bob": "owner"}
    # The old owner may now leave; the new one may not.
    services.team_leave(actor=alice, team=alpha)
    with pytest.raises(BadRequest):
        services.team_leave(actor=bob, team=alpha)


def test_only_the_owner_transfers(alice, bob, alpha):
    with pytest.raises(Forbidden):
        services.team_transfer(actor=bob, team=alpha, new_owner_id=bob.id)
    assert roles(alpha) == {"alice": "owner", "bob": "member"}


def test_transfer_to_a_non_member_is_404(alice, carol, alpha):
    with pytest.raises(NotFound):
        services.team_transfer(actor=alice, team=alpha, new_owner_id=carol.id)
    assert Team.objects.get(pk=alpha.pk).owner == alice


def test_a_non_member_actor_gets_404_from_every_service(carol, bob, alpha):
    calls = [
        lambda: services.team_delete(actor=carol, team=alpha),
        lambda: services.membership_remove(actor=carol, team=alpha, user_id=bob.id),
        lambda: services.team_leave(actor=carol, team=alpha),
        lambda: services.team_transfer(actor=carol, team=alpha, new_owner_id=carol.id),
        lambda: services.invite_create(actor=carol, team=alpha),
        lambda: services.invite_revoke(actor=carol, team=alpha, invite_id="x"),
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
    import re

    _, code = services.invite_create(actor=alice, team=alpha)
    user, _, token = services.invite_accept(code=code, display=display)
    assert re.fullmatch(expected, user.username), user.username
    assert token.startswith("ltm_")
