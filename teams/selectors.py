"""Reads about teams, always from the point of view of a viewer."""

from core.errors import NotFound
from core.links import external_url
from teams.models import Invite, Membership, Team, TeamEvent, invite_code_hash

EVENTS_DEFAULT_LIMIT = 50
EVENTS_MAX_LIMIT = 200


def team_get_for_member(*, viewer, name: str) -> Team:
    """The team called `name` if the viewer belongs to it; otherwise 404, as if it didn't exist."""
    team = Team.objects.filter(name=name, memberships__user=viewer).first()
    if team is None:
        raise NotFound("team not found")
    return team


def is_member(*, viewer, team_id: str) -> bool:
    return Team.objects.filter(pk=team_id, memberships__user=viewer).exists()


def team_role(*, viewer, team_id: str) -> str | None:
    """The viewer's role in the team ("owner", "admin" or "member"), None for an outsider."""
    return Membership.objects.filter(team_id=team_id, user=viewer).values_list("role", flat=True).first()


def teams_for_user(*, viewer):
    """The teams the viewer belongs to, oldest first."""
    return Team.objects.filter(memberships__user=viewer).order_by("created_at", "id")


def memberships_of(*, viewer):
    """The viewer's memberships (their role in each team and when they joined), by team name,
    with each team and its owner."""
    return Membership.objects.filter(user=viewer).select_related("team__owner").order_by("team__name")


def _require_member(*, viewer, team) -> None:
    if not is_member(viewer=viewer, team_id=team.pk):
        raise NotFound("team not found")


def team_members(*, viewer, team):
    """The memberships of a team the viewer belongs to (with their users), in joining order."""
    _require_member(viewer=viewer, team=team)
    return Membership.objects.filter(team=team).select_related("user").order_by("joined_at", "id")


def team_member_get(*, viewer, team, user_id: str) -> Membership | None:
    """The membership of `user_id` in `team`, with its user, if the viewer belongs to the team too."""
    return (
        Membership.objects.filter(team=team, user_id=user_id, team__memberships__user=viewer)
        .select_related("user")
        .first()
    )


def team_pending_invites(*, viewer, team):
    """Invites of the team that can still be accepted (unused, unrevoked, unexpired), newest
    first, with who created them and who they are for. Any member may see them; the owner and
    admins may revoke and resend them."""
    _require_member(viewer=viewer, team=team)
    invites = Invite.objects.usable().filter(team=team).select_related("created_by")
    return invites.order_by("-created_at", "-id")


def invite_get_for_page(*, code) -> Invite | None:
    """The invite behind a code, whatever its state (the page says used, expired or revoked
    plainly), with its team and creator; None for an unknown code."""
    if not isinstance(code, str) or not code:
        return None
    invites = Invite.objects.select_related("team", "created_by")
    return invites.filter(code_hash=invite_code_hash(code)).first()


def invite_url(request, code: str) -> str:
    """The link `ltm join` and browsers open: <external base URL>/v1/invites/<code>."""
    return external_url(request, f"/v1/invites/{code}")


def transfers_offered_to(*, viewer):
    """Teams whose ownership was offered to the viewer and awaits their answer, by name."""
    return Team.objects.filter(transfer_to=viewer, memberships__user=viewer).select_related("owner").order_by("name")


def team_events(*, viewer, team, kind: str = "", before: int | None = None, limit: int = EVENTS_DEFAULT_LIMIT):
    """A page of the team's activity log, newest first: at most `limit` events older than the
    event `before` (keyset pagination by id), of one `kind` if given. Members only: the check is
    part of the one query (nothing for anyone else; callers resolve the team for the viewer)."""
    events = TeamEvent.objects.filter(team=team, team__memberships__user=viewer)
    if kind:
        events = events.filter(kind=kind)
    if before is not None:
        events = events.filter(id__lt=before)
    return list(events.order_by("-id")[:limit])
