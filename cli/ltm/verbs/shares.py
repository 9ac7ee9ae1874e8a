"""Shares (this hub's extension; the protocol, and the Go client's hub, have none): a packet
handed to one person by username, the inbox, and where a person's packets are when none is
personal (`ltm ls`, the `ltm resume` picker)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlencode

from ..client import Hub
from ..errors import HubRequestError, LtmError
from .findings import unless_quarantined
from .session import connect, json_object, packet_call, unless_missing

INBOX, SENT = "in", "out"  # the directions of GET /v1/shares
SHARES_MAX = 200  # the most GET /v1/shares answers
NO_SUCH_USER = "no such user"  # the hub's 404 for a username it does not know


def share(packet_id: str, username: str, note: str | None = None) -> tuple[dict, bool]:
    """Share the packet with the person signed in as `username`: (the share as the hub answers it,
    whether it is new). Sharing it again with them keeps the one share and replaces its note."""
    hub = connect()
    body = {"to": username} if note is None else {"to": username, "note": note}

    def post(packet_id: str):
        try:
            path = f"/v1/packets/{quote(packet_id, safe='')}/shares"
            # 202: a person on another hub (username@host), whose hub takes it after this.
            sent = lambda: hub.call("POST", path, json_body=body, expect=(200, 201, 202))  # noqa: E731
            return unless_quarantined(sent, hub, packet_id, "shared")
        except HubRequestError as exc:
            if exc.status == 404 and str(exc) == NO_SUCH_USER:
                raise LtmError(
                    f"no such user {username!r} on {hub.host}; ask them for the username they sign in with"
                ) from None
            raise

    response = packet_call(post, hub, packet_id)
    return json_object(hub, response).get("share") or {}, response.status == 201


def shares(direction: str = INBOX, limit: int | None = None) -> list[dict]:
    """The shares with the person (INBOX) or by them (SENT), newest first, each with "seen":
    whether the recipient has read the packet since."""
    hub = connect()
    no_shares = f"{hub.host} does not share packets by username (an ltm hub extension)"
    return unless_missing(lambda: _shares(hub, direction, limit), no_shares)


def _shares(hub: Hub, direction: str, limit: int | None) -> list[dict]:
    query = urlencode({"direction": direction, **({"limit": limit} if limit else {})})
    return list(json_object(hub, hub.call("GET", f"/v1/shares?{query}", expect=(200,))).get("shares") or [])


def unshare(share_id: str) -> None:
    """Withdraw a share the person made, or dismiss one made to them."""
    hub = connect()
    missing = (
        f"share {share_id} not found on {hub.host}; `ltm inbox` lists the shares with you, `ltm inbox --sent` yours"
    )
    unless_missing(lambda: hub.call("DELETE", f"/v1/shares/{quote(share_id, safe='')}", expect=(200, 204)), missing)


def resume_choices(limit: int) -> list[dict]:
    """What `ltm resume` offers with no id: the packets shared with the person that they have not
    read yet, then their own newest packets, as [{id, created_at, goal, shared_by}] (shared_by:
    the sender's name, None for their own)."""
    hub = connect()
    inbox = _inbox(hub, limit)
    unseen = {}
    for shared in inbox:
        if not shared.get("seen"):  # the newest share of a packet names its sender
            unseen.setdefault(
                shared["packet_id"],
                {
                    "id": shared["packet_id"],
                    "created_at": shared.get("created_at", ""),
                    "goal": shared.get("goal", ""),
                    "shared_by": (shared.get("from") or {}).get("display"),
                },
            )
    own = [{**packet, "shared_by": None} for packet in hub.list_packets(limit=limit)]
    return [*unseen.values(), *own]


def _inbox(hub: Hub, limit: int | None) -> list[dict]:
    """The shares with the person; none on a hub without shares."""
    return _unless_gone(lambda: _shares(hub, INBOX, limit))


TEAMS_LOOKED_INTO = 10  # the most teams `elsewhere` asks for a packet, one call each


@dataclass
class Elsewhere:
    """Where a person's packets are when none is personal."""

    teams: list[str]  # the person's teams that hold packets
    more_teams: bool  # they have more teams than were looked into
    shared: int  # the packets shared with them (`ltm inbox`)

    def __bool__(self) -> bool:
        return bool(self.teams or self.more_teams or self.shared)


def elsewhere() -> Elsewhere:
    """Where the person's packets are, for the commands that find no personal one (`ltm ls`, the
    `ltm resume` picker): their teams that hold packets, and what was shared with them."""
    hub = connect()
    names = _unless_gone(hub.list_teams)
    names = [str(team["name"]) for team in names if isinstance(team, dict) and team.get("name")]
    teams = [name for name in names[:TEAMS_LOOKED_INTO] if _unless_gone(lambda: hub.list_packets(limit=1, team=name))]
    shared = {share.get("packet_id") for share in _inbox(hub, SHARES_MAX)}
    return Elsewhere(teams, len(names) > TEAMS_LOOKED_INTO, len(shared))


def _unless_gone(call) -> list:
    """`call()`, or nothing when the hub answers 404 (a team left meanwhile, a hub without teams)."""
    try:
        return call()
    except HubRequestError as exc:
        if exc.status != 404:
            raise
        return []
