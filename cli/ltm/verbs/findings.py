"""The hub's secret scan (this hub's extension; the protocol has none): what it found in a
packet, vouching that it is not a secret, the review queue, and the quarantine's refusals."""

from __future__ import annotations

from urllib.parse import quote

from ..client import Hub
from ..errors import HubRequestError, LtmError
from ..protocol.redact import finding_line
from .session import connect, json_object, packet_call, team_call, team_query, unless_missing


class Quarantined(LtmError):
    """The hub will not publish or share a packet its secret scan flagged (409); `findings` says where."""

    def __init__(self, host: str, packet_id: str, doing: str, findings: list[dict]):
        super().__init__(
            f"packet {packet_id} cannot be {doing}: the hub's secret scan found what looks like secrets in "
            f"these fields. {way_out(packet_id, host)}",
            finding_lines(findings),
        )
        self.findings = findings


def way_out(packet_id: str, host: str | None = None) -> str:
    """How a quarantined packet gets out of quarantine."""
    page = f" or on its page, {host}/packets/{quote(packet_id, safe='')}" if host else " or on its dashboard page"
    return (
        "Push a version without them (the same id replaces it), or, when they are not secrets, clear them: "
        f'`ltm findings clear {packet_id} --reason "..."`{page}'
    )


def unless_quarantined(call, hub: Hub, packet_id: str, doing: str):
    """`call()`; the hub's 409 for a quarantined packet said with its findings, as the client
    prints every finding."""
    try:
        return call()
    except HubRequestError as exc:
        findings = exc.body.get("findings") if exc.status == 409 else None
        if isinstance(findings, list) and findings and all(isinstance(finding, dict) for finding in findings):
            raise Quarantined(hub.host, packet_id, doing, findings) from None
        raise


def finding_lines(findings: list[dict]) -> list[str]:
    """Findings one a line, as the hub names them: "next_step: aws-access-key"."""
    return [finding_line(finding) for finding in findings]


NO_SCAN = "{host} does not scan packets for secrets (an ltm hub extension)"


def findings(packet_id: str) -> list[dict]:
    """What the hub's secret scan found in a packet the person may read: [{path, kind, created_at,
    cleared_by, cleared_at, reason}], cleared_by and cleared_at null while a finding is open."""
    hub = connect()
    path = f"/v1/packets/{quote(packet_id, safe='')}/findings"
    response = packet_call(lambda _: hub.call("GET", path, expect=(200,)), hub, packet_id)
    return list(json_object(hub, response).get("findings") or [])


def clear_findings(packet_id: str, reason: str) -> list[dict]:
    """Vouch that a packet's findings are not secrets (its creator, or its team's owner or an
    admin): the quarantine ends and the team's log keeps who and why. The findings, cleared."""
    hub = connect()
    path = f"/v1/packets/{quote(packet_id, safe='')}/findings/clear"
    response = packet_call(
        lambda _: hub.call("POST", path, json_body={"reason": reason}, expect=(200,)), hub, packet_id
    )
    return list(json_object(hub, response).get("findings") or [])


def review_queue(team: str | None = None) -> list[dict]:
    """The open findings the person is asked to look at, the newest packets first: of their own
    packets, and of every packet of the teams they own or administer (or only `team`'s), as
    [{packet_id, goal, team, path, kind, created_at}]."""

    def queue(hub: Hub) -> list[dict]:
        response = hub.call("GET", "/v1/findings" + team_query(team), expect=(200,))
        return list(json_object(hub, response).get("findings") or [])

    if team:
        return team_call(queue, team)
    hub = connect()
    return unless_missing(lambda: queue(hub), NO_SCAN.format(host=hub.host))
