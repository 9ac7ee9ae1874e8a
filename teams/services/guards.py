"""The checks every team service starts with: who the actor is in the team, and the team row
held for the change.

Roles: a non-member gets 404 (as if the team didn't exist), a member lacking the role 403.

One lock order for everything that touches a team: the team row first, then the rows that
belong to it. Team-wide changes (delete, transfer, remove, leave, revoke) lock it FOR UPDATE
(`team_locked`); writes that only add to a team (a push, an invite, a join) hold it FOR KEY
SHARE (`team_hold`), so any number of them run side by side, a deletion waits for them, and they
find no team once it is gone (instead of failing at commit on the foreign key, or deadlocking
against the deletion).
"""

from django.db import connection

from core.errors import BadRequest, Forbidden, NotFound
from teams.models import Membership, Team

NOT_A_MANAGER = "only the team owner or an admin can do this"


def membership_of(*, person, team) -> Membership | None:
    return Membership.objects.filter(team=team, user=person).first()


def require_member(*, actor, team) -> Membership:
    membership = membership_of(person=actor, team=team)
    if membership is None:
        raise NotFound("team not found")
    return membership


def require_owner(*, actor, team) -> Membership:
    membership = require_member(actor=actor, team=team)
    if membership.role != Membership.OWNER:
        raise Forbidden("only the team owner can do this")
    return membership


def require_manager(*, actor, team) -> Membership:
    """The owner or an admin."""
    membership = require_member(actor=actor, team=team)
    if membership.role not in Membership.MANAGERS:
        raise Forbidden(NOT_A_MANAGER)
    return membership


def member_by_id(team, user_id) -> Membership:
    """The membership of the person a request names by `user_id` (404 if they are not in it)."""
    if not isinstance(user_id, str) or not user_id:
        raise BadRequest("user_id must be a member's id (a string)")
    membership = Membership.objects.filter(team=team, user_id=user_id).select_related("user").first()
    if membership is None:
        raise NotFound("member not found")
    return membership


def team_locked(team) -> Team:
    """The team row, locked for a team-wide change (see the module docstring)."""
    locked = Team.objects.select_for_update().filter(pk=team.pk).first()
    if locked is None:
        raise NotFound("team not found")
    return locked


def team_hold(*, team_id: str) -> None:
    """Keep the team from being deleted until this transaction ends, for a write that adds a row
    to it; NotFound once it is gone. (SQLite runs one writer at a time: nothing to hold there.)"""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {Team._meta.db_table} WHERE id = %s FOR KEY SHARE", [team_id])
            found = cursor.fetchone() is not None
    else:
        found = Team.objects.filter(pk=team_id).exists()
    if not found:
        raise NotFound("team not found")
