"""Small builders for team tests."""

from teams.models import Membership
from teams.services import invite_create, team_create


def make_team(owner, name="alpha", members=()):
    """A team owned by `owner` with `members` added as plain members."""
    team = team_create(actor=owner, name=name)
    for user in members:
        Membership.objects.create(team=team, user=user, role=Membership.MEMBER)
    return team


def make_invite(team, actor=None):
    """(invite, code) minted by `actor` (default: the owner)."""
    return invite_create(actor=actor or team.owner, team=team)
