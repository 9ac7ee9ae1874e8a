"""Reads about teams, always from the point of view of a viewer."""

from teams.models import Team
from hub.errors import NotFound


def team_get_for_member(*, viewer, name: str) -> Team:
    """The team called `name` if the viewer belongs to it; otherwise 404, as if it didn't exist."""
    team = Team.objects.filter(name=name, memberships__user=viewer).first()
    if team is None:
        raise NotFound("team not found")
    return team


def is_member(*, user, team_id: str) -> bool:
    return Team.objects.filter(pk=team_id, memberships__user=user).exists()
