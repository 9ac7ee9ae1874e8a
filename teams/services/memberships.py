"""Teams and who is in them: create and delete a team, remove a member, leave, and the owner
giving or taking back the admin role."""

import re

from django.db import IntegrityError, transaction

from core.errors import BadRequest, Conflict, Forbidden, HubError
from teams.events import person_detail, team_event_record
from teams.models import TEAM_NAME_PATTERN, Membership, Team, TeamEvent
from teams.services.guards import (
    NOT_A_MANAGER,
    member_by_id,
    require_manager,
    require_member,
    require_owner,
    team_locked,
)
from teams.services.ownership import offer_forget
from teams.signals import sharing_narrowed

ASSIGNABLE_ROLES = (Membership.ADMIN, Membership.MEMBER)


@transaction.atomic
def team_create(*, actor, name) -> Team:
    if not isinstance(name, str) or not re.fullmatch(TEAM_NAME_PATTERN, name):
        raise BadRequest(
            "a team name is 1 to 40 characters: lower-case letters, digits, '-' and '_', "
            "starting with a letter or digit"
        )
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name, owner=actor)
    except IntegrityError:  # the unique name, also under a concurrent create
        raise Conflict(f"team name {name!r} is already taken") from None
    Membership.objects.create(team=team, user=actor, role=Membership.OWNER)
    return team


@transaction.atomic
def team_delete(*, actor, team) -> None:
    """The owner deletes the team, its memberships, invites and packets."""
    team = team_locked(team)
    require_owner(actor=actor, team=team)
    team.packets.all().delete()
    team.delete()


def membership_removal_refusal(*, actor_role: str, member_role: str) -> HubError | None:
    """Why someone of `actor_role` may not remove a member of `member_role` (None: they may). The
    owner removes anyone but themselves; an admin removes plain members. The service and the
    team page's Remove buttons both ask this."""
    if actor_role not in Membership.MANAGERS:
        return Forbidden(NOT_A_MANAGER)
    if member_role == Membership.OWNER:
        return BadRequest("the owner cannot be removed; transfer ownership or delete the team")
    if member_role == Membership.ADMIN and actor_role != Membership.OWNER:
        return Forbidden("only the team owner can remove an admin")
    return None


@transaction.atomic
def membership_remove(*, actor, team, user_id: str) -> None:
    team = team_locked(team)
    mine = require_manager(actor=actor, team=team)
    membership = member_by_id(team, user_id)
    refusal = membership_removal_refusal(actor_role=mine.role, member_role=membership.role)
    if refusal:
        raise refusal
    membership.delete()
    offer_forget(team, membership.user_id)
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.MEMBER_REMOVED, **person_detail(membership.user))
    sharing_narrowed.send(sender=Team, team_id=team.pk, actor=actor)


@transaction.atomic
def team_leave(*, actor, team) -> None:
    team = team_locked(team)
    membership = require_member(actor=actor, team=team)
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner cannot leave the team; transfer ownership or delete the team")
    membership.delete()
    offer_forget(team, actor.pk)
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.MEMBER_LEFT, **person_detail(actor))
    sharing_narrowed.send(sender=Team, team_id=team.pk, actor=actor)


@transaction.atomic
def membership_set_role(*, actor, team, user_id: str, role) -> Membership:
    """The owner makes a member an admin (or an admin a plain member again). Ownership changes
    hands only by an accepted transfer."""
    team = team_locked(team)
    require_owner(actor=actor, team=team)
    if role not in ASSIGNABLE_ROLES:
        raise BadRequest('role must be "admin" or "member" (ownership is transferred, not assigned)')
    membership = member_by_id(team, user_id)
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner's role cannot change; transfer ownership instead")
    if membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
        kind = TeamEvent.MEMBER_PROMOTED if role == Membership.ADMIN else TeamEvent.MEMBER_DEMOTED
        team_event_record(team_id=team.pk, actor=actor, kind=kind, role=role, **person_detail(membership.user))
    return membership
