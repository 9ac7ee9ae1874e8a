"""Ownership changes hands in two steps: the owner offers the team to another member, who
accepts (or declines; the owner may withdraw). Until then nothing changes. The offer lives on
the team row (`transfer_to`), so each step locks that row first."""

from django.db import transaction
from django.utils import timezone

from core.errors import BadRequest, Forbidden, NotFound
from teams.events import person_detail, team_event_record
from teams.models import Membership, Team, TeamEvent
from teams.services.guards import member_by_id, require_member, require_owner, team_locked


def _offer_clear(team) -> None:
    team.transfer_to, team.transfer_offered_at = None, None
    team.save(update_fields=["transfer_to", "transfer_offered_at"])


def offer_forget(team, user_id) -> None:
    """Someone leaving the team can no longer take it over."""
    if team.transfer_to_id == user_id:
        _offer_clear(team)


@transaction.atomic
def team_transfer_offer(*, actor, team, new_owner_id: str) -> Team:
    """The owner offers the team to another member; nothing changes until they accept. A new
    offer replaces the pending one."""
    team = team_locked(team)
    require_owner(actor=actor, team=team)
    new = member_by_id(team, new_owner_id)
    if new.user_id == actor.pk:
        raise BadRequest("you already own this team")
    team.transfer_to, team.transfer_offered_at = new.user, timezone.now()
    team.save(update_fields=["transfer_to", "transfer_offered_at"])
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.OWNERSHIP_OFFERED, **person_detail(new.user))
    return team


@transaction.atomic
def team_transfer_cancel(*, actor, team) -> None:
    """The owner withdraws the pending offer, or the member it was made to declines it."""
    team = team_locked(team)
    membership = require_member(actor=actor, team=team)
    if team.transfer_to_id is None:
        raise NotFound("no ownership transfer is pending")
    if membership.role != Membership.OWNER and team.transfer_to_id != actor.pk:
        raise Forbidden("only the team owner or the member it was offered to can cancel the transfer")
    _offer_clear(team)


@transaction.atomic
def team_transfer_accept(*, actor, team) -> Team:
    """The member the team was offered to takes it: they become the owner, the previous owner an
    admin."""
    team = team_locked(team)
    new = require_member(actor=actor, team=team)
    if team.transfer_to_id is None:
        raise NotFound("no ownership transfer is pending")
    if team.transfer_to_id != actor.pk:
        raise Forbidden("the ownership of this team was offered to someone else")
    old = Membership.objects.select_related("user").get(team=team, role=Membership.OWNER)
    old.role, new.role = Membership.ADMIN, Membership.OWNER
    old.save(update_fields=["role"])
    new.save(update_fields=["role"])
    team.owner_id, team.transfer_to, team.transfer_offered_at = new.user_id, None, None
    team.save(update_fields=["owner", "transfer_to", "transfer_offered_at"])
    team_event_record(
        team_id=team.pk,
        actor=actor,
        kind=TeamEvent.OWNERSHIP_TRANSFERRED,
        from_user_id=old.user_id,
        from_name=old.user.display_name,
        **person_detail(actor),
    )
    return team
