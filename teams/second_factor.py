"""A team that requires a second factor (Team.require_mfa): the one statement of whom it keeps out.

A member who has not shown a second factor holds no right in such a team's packets: not in the
dashboard until their account has one, not through a token unless it was issued after a sign-in
with one (accounts.mfa.second_factor_shown says which, for the request at hand). The packets'
rights (packets.models) ask here which of a person's memberships count (`open_memberships` for
their querysets, `open_memberships_sql` for their plain SQL); the pages ask which teams to name in
their notice (`teams_requiring`) and who is not yet compliant (`members_without_second_factor`).
"""

from accounts.mfa import second_factor_shown, users_with_second_factor
from core.errors import Forbidden
from teams.models import Membership, Team


def open_memberships(memberships, person):
    """`memberships` (a queryset of Membership) less those of teams closed to `person`."""
    if second_factor_shown(person):
        return memberships
    return memberships.exclude(team__require_mfa=True)


def open_memberships_sql(person) -> str:
    """The same as a condition on the membership table's rows ("" when nothing is closed)."""
    if second_factor_shown(person):
        return ""
    return f" AND team_id NOT IN (SELECT id FROM {Team._meta.db_table} WHERE require_mfa)"


def teams_requiring(*, viewer) -> list[Team]:
    """The teams of the viewer that require a second factor they have not shown, by name."""
    if not viewer.is_authenticated:
        return []
    teams = Team.objects.filter(require_mfa=True, memberships__user=viewer).order_by("name")
    if not teams.exists() or second_factor_shown(viewer):
        return []
    return list(teams)


def members_without_second_factor(*, team) -> list[Membership]:
    """The members of `team` whose account has no second factor yet, in joining order."""
    memberships = Membership.objects.filter(team=team).exclude(user_id__in=users_with_second_factor())
    return list(memberships.select_related("user").order_by("joined_at", "id"))


def closed_team_refusal(*, viewer, team) -> None:
    """Forbidden, saying why, when `team` requires a second factor `viewer` has not shown: for a
    listing of the team's packets, which would otherwise look empty."""
    if team.require_mfa and not second_factor_shown(viewer):
        raise Forbidden(
            f"team {team.name!r} requires a second factor: add one on the hub (Account, Two-factor), "
            "then sign this client in again (ltm auth) or make a new token after signing in with it"
        )
