"""`ltm push` and `ltm save`: a packet checked here (validation, the redaction pre-flight), then
sent, with the hub's refusals said as a person can act on them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..client import Hub
from ..errors import HubRequestError, IdTaken, LtmError, PacketRejected, RedactionRefused
from ..protocol.packet import PacketError, parse_packet
from ..protocol.redact import scan_packet
from ..protocol.strict_json import JSONLimitError, loads_loosely
from .findings import finding_lines
from .session import connect, json_object, no_team, team_query


@dataclass
class Pushed:
    host: str
    id: str
    # What the hub's secret scan found, [{"path", "kind"}]: the packet is stored but quarantined
    # (not published, not shared) until a clean re-push or a cleared finding. Empty when clean.
    findings: list[dict] = field(default_factory=list)


class SecretsRefused(LtmError):
    """The hub's secret scan refused the packet (422) and stored nothing; `findings` says where."""

    def __init__(self, host: str, findings: list[dict]):
        super().__init__(
            f"{host} refused the packet: its secret scan found what looks like secrets, and this hub (or "
            "team) stores no such packet; remove them and push again (--allow-unredacted only skips this "
            "client's own check, never the hub's)",
            finding_lines(findings),
        )
        self.findings = findings


def push(raw: bytes, *, team: str | None = None, lenient: bool = False, allow_unredacted: bool = False) -> Pushed:
    """Check the packet (validation unless lenient, redaction unless allowed), then push it."""
    packet = check_for_push(raw, lenient=lenient, allow_unredacted=allow_unredacted)
    hub = connect()
    packet_id, findings = push_to(hub, raw, team)
    return Pushed(hub.host, packet_id or (packet or {}).get("id", ""), findings)


def push_packet(packet: dict, *, team: str | None = None) -> Pushed:
    """Push a packet already checked (by ltm.protocol.tool_calls, for `ltm mcp`)."""
    hub = connect()
    raw = json.dumps(packet, ensure_ascii=False).encode("utf-8")
    packet_id, findings = push_to(hub, raw, team)
    return Pushed(hub.host, packet_id or packet["id"], findings)


def check_for_push(raw: bytes, *, lenient: bool = False, allow_unredacted: bool = False) -> dict | None:
    """Validate (unless lenient) and run the redaction pre-flight (unless allowed). The packet."""
    try:
        packet = _lenient_packet(raw) if lenient else parse_packet(raw)
    except PacketError as exc:
        raise PacketRejected(
            "packet rejected; fix these and try again (`ltm example` prints a valid packet)",
            exc.errors,
        ) from None
    if isinstance(packet, dict) and not allow_unredacted:
        findings = scan_packet(packet)
        if findings:
            raise RedactionRefused(findings)
    return packet


def _lenient_packet(raw: bytes):
    """The packet for the scan only (the hub still validates), None when it is not JSON. One
    nested too deep is refused here: the scan could not read it, and the hub refuses it too."""
    try:
        return _loose_json(raw)
    except JSONLimitError as exc:
        raise PacketError([f"invalid JSON: {exc}"]) from None


def push_to(hub: Hub, raw: bytes, team: str | None) -> tuple[str, list[dict]]:
    """(the id the hub answers, what its secret scan found); SecretsRefused when it refused."""
    try:
        # This hub's answer may carry its secret scan's findings, in a 201 and in a 422 alike.
        response = hub.call("POST", "/v1/packets" + team_query(team), raw=raw, expect=(200, 201, 422))
    except HubRequestError as exc:
        if exc.status == 400:
            raise PacketRejected(f"packet rejected by {hub.host}", hub_errors(str(exc))) from None
        if exc.status == 409:
            packet_id = packet_id_of(raw)
            if packet_id and _readable(hub, packet_id):
                # Not someone else's id: our own packet, refused for another reason (e.g. it
                # lives in another scope). The hub's message says what to do.
                raise LtmError(f"{hub.host} refused the push: {exc}") from None
            raise IdTaken(hub.host, packet_id) from None
        if exc.status == 404 and team:
            raise no_team(hub, team) from None
        raise
    data = json_object(hub, response)
    findings = [finding for finding in data.get("findings") or [] if isinstance(finding, dict)]
    if response.status == 422:  # this hub's refusal names its findings; any other 422 is only an error
        if not findings:
            raise HubRequestError(str(data.get("error") or f"{hub.host} refused the packet (HTTP 422)"), 422)
        raise SecretsRefused(hub.host, findings)
    return str(data.get("id", "")), findings


def _readable(hub: Hub, packet_id: str) -> bool:
    try:
        hub.get_packet(packet_id)
    except HubRequestError:
        return False
    return True


def hub_errors(message: str) -> list[str]:
    """The hub's 400 message as a list, one error a line like a local validation.

    The hub joins the first three errors with "; " and may end with " (and N more)"; an error
    itself may contain "; " (the size limit does), so only a "; " before a JSON path splits.
    """
    more = re.search(r" \(and (\d+) more\)$", message)
    if more:
        message = message[: more.start()]
    errors = re.split(r"; (?=\$)", message)
    if more:
        errors.append(f"... and {more.group(1)} more (push without --lenient to list every error)")
    return errors


def _loose_json(raw: bytes):
    """The decoded JSON, None when it is not JSON; JSONLimitError when it nests too deep."""
    try:
        return loads_loosely(raw.decode("utf-8"))
    except JSONLimitError:
        raise
    except ValueError:  # not UTF-8, not JSON, or a number too long for Python
        return None


def packet_id_of(raw: bytes) -> str:
    """The packet's id as far as it can be read, for messages; empty when it cannot."""
    try:
        packet = _loose_json(raw)
    except JSONLimitError:
        return ""
    packet_id = packet.get("id") if isinstance(packet, dict) else None
    return "" if packet_id is None else str(packet_id)
