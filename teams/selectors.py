"""Reads about teams, always from the point of view of a viewer."""

from django.utils import timezone

from hub.errors import NotFound
from hub.links import external_url
from teams.models import Invite, Membership, Team, invite_code_hash


def team_get_for_member(*, viewer, name: str) -> Team:
    """The team called `name` if the viewer belongs to it; otherwise 404, as if it didn't exist."""
    team = Team.objects.filter(name=name, memberships__user=viewer).first()
    if team is None:
        raise NotFound("team not found")
    return team


def is_member(*, user, team_id: str) -> bool:
    return Team.objects.filter(pk=team_id, memberships__user=user).exists()


def teams_for_user(*, viewer):
    """The teams the viewer belongs to, oldest first."""
    return Team.objects.filter(memberships__user=viewer).order_by("created_at", "id")


def _require_member(*, viewer, team) -> None:
    if not Membership.objects.filter(team=team, user=viewer).exists():
        raise NotFound("team not found")


def team_members(*, viewer, team):
    """The memberships of a team the viewer belongs to (with their users), in joining order."""
    _require_member(viewer=viewer, team=team)
    return Membership.objects.filter(team=team).select_related("user").order_by("joined_at", "id")


def team_pending_invites(*, viewer, team):
    """Invites of the team that can still be accepted (unused, unrevoked, unexpired), newest
    first, with who created them. Any member may see them; only the owner may revoke."""
    _require_member(viewer=viewer, team=team)
    return (
        Invite.objects.filter(
            team=team, used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
        )
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )


def invite_get_for_page(*, code) -> Invite | None:
    """The invite behind a code, whatever its state (the page says used, expired or revoked
    plainly), with its team and creator; None for an unknown code."""
    if not isinstance(code, str) or not code:
        return None
    return Invite.objects.select_related("team", "created_by").filter(code_hash=invite_code_hash(code)).first()


def invite_url(request, code: str) -> str:
    """The link `ltm join` and browsers open: <external base URL>/v1/invites/<code>."""
    return external_url(request, f"/v1/invites/{code}")
