"""The team verbs: create, delete, list, members, leave, invites and the activity log, and the
administration (roles, removing members, ownership transfers, pending invites)."""

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
                    f"you own team {name}, and an owner cannot leave; hand it on first with `ltm teams "
                    f"transfer {name} <member>` (or on the team's page {hub.host}/teams/{quote(name, safe='')}) "
                    f"and leave once they accept, or delete the team with `ltm teams rm {name}`"
                ) from None
            raise

    team_call(leave, name)


def create_invite(team: str, email: str | None = None, label: str | None = None) -> dict:
    """A single-use invite: {"url", "expires_at", ...}; with `email`, the hub also mails it."""
    return team_call(lambda hub: hub.create_invite(team, email=email, label=label), team)


def team_log(name: str, limit: int | None = None, before: int | None = None, kind: str | None = None) -> dict:
    """A page of the team's activity log, newest first: {"events": [...], "next_before": id or None}."""
    return team_call(lambda hub: hub.team_events(name, limit=limit, before=before, kind=kind), name)


# --- administration: this hub's extensions; the hub says who may (owner, admins) --------------

TEAM_NOT_FOUND = "team not found"  # the hub's 404 for the team itself, as for every team call
_INVITES_HINT = "`ltm teams invites {team}` lists the pending ones"


def set_role(team: str, who: str, role: str) -> dict:
    """Make a member an admin, or an admin a member again (`role`): the member, as listed."""
    return _in_team(team, lambda hub: hub.set_role(team, _member(hub, team, who)["user_id"], role))


def remove_member(team: str, who: str) -> dict:
    """Remove a member from the team: the member removed, as listed."""

    def remove(hub: Hub) -> dict:
        member = _member(hub, team, who)
        hub.remove_member(team, member["user_id"])
        return member

    return _in_team(team, remove)


def offer_transfer(team: str, who: str) -> dict:
    """Offer the team's ownership to a member; nothing changes until they accept. The member
    offered it: {"id", "display"}."""
    offer = _in_team(team, lambda hub: hub.offer_transfer(team, _member(hub, team, who)["user_id"]))
    return offer.get("to") or {"display": who}


def accept_transfer(team: str) -> None:
    _in_team(team, lambda hub: hub.accept_transfer(team))


def cancel_transfer(team: str) -> None:
    """Decline the ownership offered to you, or withdraw the offer you made (one call on the hub)."""
    _in_team(team, lambda hub: hub.cancel_transfer(team))


def list_invites(team: str) -> list[dict]:
    """The team's pending invites, newest first: [{id, created_by, created_at, expires_at, email?,
    label?, mailed_at?}]."""
    return _in_team(team, lambda hub: hub.list_invites(team))


def revoke_invite(team: str, invite_id: str) -> None:
    _in_team(team, lambda hub: hub.revoke_invite(team, invite_id), _INVITES_HINT)


def resend_invite(team: str, invite_id: str) -> dict:
    """Mail an invite by e-mail again, with a fresh link (the one mailed before stops working)."""
    return _in_team(team, lambda hub: hub.resend_invite(team, invite_id), _INVITES_HINT)


def _in_team(team: str, call, hint: str = ""):
    """team_call, where a 404 may also be about something in the team (no transfer pending, an
    unknown invite or member): that one keeps the hub's words, with the team and what to run."""

    def run(hub: Hub):
        try:
            return call(hub)
        except HubRequestError as exc:
            if exc.status == 404 and str(exc) != TEAM_NOT_FOUND:
                then = f"; {hint.format(team=team)}" if hint else ""
                raise LtmError(f"{exc} in team {team}{then}") from None
            raise

    return team_call(run, team)


def _member(hub: Hub, team: str, who: str) -> dict:
    """The member `who` names: their user id, else their e-mail or their name (any case)."""
    members = hub.team_members(team)
    for member in members:
        if member.get("user_id") == who:
            return member
    wanted = who.casefold()
    found = [m for m in members if wanted in (str(m.get("email") or "").casefold(), str(m.get("display")).casefold())]
    if len(found) == 1:
        return found[0]
    listing = f"`ltm teams members {team}` lists them"
    if not found:
        raise LtmError(f"no member {who!r} in team {team}; {listing} (give a name, an e-mail or a user id)")
    ids = ", ".join(str(m.get("user_id")) for m in found)
    raise LtmError(f"{who!r} names {len(found)} members of team {team} ({ids}); give the user id ({listing})")
