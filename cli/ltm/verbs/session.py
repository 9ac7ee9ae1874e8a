"""The hub a verb talks to, and the messages for what it does not find.

Every verb reads the stored credentials afresh, and raises an LtmError whose message says what
to do next.
"""

from __future__ import annotations

from urllib.parse import urlencode

from ..client import Hub
from ..config import configured_host, host_source, read_token
from ..errors import HubRequestError, LtmError


def connect(require_token: bool = True) -> Hub:
    """The configured hub with the stored token; an error that says how to set either up."""
    host = configured_host()
    if not host:
        raise LtmError("no hub configured; run `ltm auth <host>` (or set LTM_HUB_URL)")
    token = read_token()
    hub = Hub(host, token, source=host_source())
    if require_token and not token:
        raise LtmError(f"not signed in; run `ltm auth {hub.host}`")
    return hub


def packet_call(method, hub: Hub, packet_id: str):
    """Call a per-packet endpoint, turning a 404 into a message that says what to do."""
    try:
        return method(packet_id)
    except HubRequestError as exc:
        if exc.status == 404:
            raise LtmError(f"packet {packet_id} not found on {hub.host}; list yours with `ltm ls`") from None
        raise


def unless_missing(call, message: str):
    """`call()`, a 404 from the hub turned into an LtmError that says `message`."""
    try:
        return call()
    except HubRequestError as exc:
        if exc.status == 404:
            raise LtmError(message) from None
        raise


def team_call(call, name: str):
    hub = connect()
    try:
        return call(hub)
    except HubRequestError as exc:
        if exc.status == 404:
            raise no_team(hub, name) from None
        raise


def no_team(hub: Hub, name: str) -> LtmError:
    return LtmError(f"team {name!r} not found on {hub.host}; list yours with `ltm teams ls`")


def team_query(team: str | None) -> str:
    """`?team=<name>` for a call scoped to a team, nothing otherwise."""
    return "?" + urlencode({"team": team}) if team else ""


def json_object(hub: Hub, response) -> dict:
    """The answer's JSON object; an error when the hub sent anything else."""
    data = response.json()
    if not isinstance(data, dict):
        raise LtmError(f"unexpected answer from {hub.host}: the body is not a JSON object")
    return data
