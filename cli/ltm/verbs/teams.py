"""The team verbs: create, delete, list, members, leave, invites and the activity log."""

from __future__ import annotations

from urllib.parse import quote

from ..client import Hub
from ..errors import HubRequestError, LtmError
from .session import connect, team_call


def create_team(name: str) -> str:
    """Create a team; its name as the hub spells it."""
    return connect().create_team(name).get("name", name)


def delete_team(name: str) -> None:
    team_call(lambda hub: hub.delete_team(name), name)


def list_teams() -> list[dict]:
    return connect().list_teams()


def team_members(name: str) -> list[dict]:
    return team_call(lambda hub: hub.team_members(name), name)


def leave_team(name: str) -> None:
    def leave(hub: Hub):
        try:
            hub.leave_team(name)
        except HubRequestError as exc:
            if exc.status == 400:  # the contract's only 400 here: the owner cannot leave
                raise LtmError(
                    f"you own team {name}, and an owner cannot leave; transfer the ownership on the "
                    f"team's page {hub.host}/teams/{quote(name, safe='')} and leave then, or delete "
                    f"the team with `ltm teams rm {name}`"
                ) from None
            raise

    team_call(leave, name)


def create_invite(team: str, email: str | None = None, label: str | None = None) -> dict:
    """A single-use invite: {"url", "expires_at", ...}; with `email`, the hub also mails it."""
    return team_call(lambda hub: hub.create_invite(team, email=email, label=label), team)


def team_log(name: str, limit: int | None = None, before: int | None = None, kind: str | None = None) -> dict:
    """A page of the team's activity log, newest first: {"events": [...], "next_before": id or None}."""
    return team_call(lambda hub: hub.team_events(name, limit=limit, before=before, kind=kind), name)
