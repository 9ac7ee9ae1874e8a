"""What the command line and the MCP server both do: find the hub, check a packet, fetch one."""

from __future__ import annotations

import json
import re
import secrets
import time
from datetime import datetime, timezone

from .client import Hub, HubError
from .config import configured_host, host_source, read_token
from .packet import PacketError, example_packet, parse_packet
from .redact import Finding, scan_packet


class ActionError(Exception):
    """A failure with an optional list of details (schema errors with their paths, findings)."""

    def __init__(self, message: str, details: list[str] | None = None):
        super().__init__(message)
        self.details = list(details or [])

    def report(self) -> str:
        return "\n".join([str(self)] + [f"  - {detail}" for detail in self.details])


class PacketRejected(ActionError):
    """The packet does not validate; `details` holds every error with its JSON path."""


class RedactionRefused(ActionError):
    """The pre-flight found secrets or machine paths; `findings` says where."""

    def __init__(self, findings: list[Finding]):
        super().__init__(
            "packet contains content that should not leave this machine; refusing to push "
            "(edit it out, or pass --allow-unredacted to push anyway, not recommended)",
            [str(finding) for finding in findings],
        )
        self.findings = findings


class IdTaken(ActionError):
    """The hub answered 409: another person already has a packet with this id."""

    def __init__(self, host: str, packet_id):
        super().__init__(
            f"packet id {packet_id or '(unknown)'} is already taken on {host} by someone else (a push "
            "never overwrites another person's packet); give the packet a new id and push again "
            "(`ltm example` prints a packet with a fresh id)"
        )
        self.packet_id = packet_id


def connect(require_token: bool = True) -> Hub:
    """The configured hub with the stored token; an error that says how to set either up."""
    host = configured_host()
    if not host:
        raise ActionError("no hub configured; run `ltm auth <host>` (or set LTM_HUB_URL)")
    token = read_token()
    hub = Hub(host, token, source=host_source())
    if require_token and not token:
        raise ActionError(f"not signed in; run `ltm auth {hub.host}`")
    return hub


def check_for_push(raw: bytes, *, lenient: bool = False, allow_unredacted: bool = False) -> dict | None:
    """Validate (unless lenient) and run the redaction pre-flight (unless allowed). The packet."""
    if lenient:
        packet = _loose_json(raw)  # the hub still validates; we only need it for the scan
    else:
        try:
            packet = parse_packet(raw)
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


def push(hub: Hub, raw: bytes, team: str | None = None) -> str:
    try:
        return hub.push(raw, team=team)
    except HubError as exc:
        if exc.status == 400:
            raise PacketRejected(f"packet rejected by {hub.host}", hub_errors(str(exc))) from None
        if exc.status == 409:
            packet = _loose_json(raw)
            packet_id = packet.get("id") if isinstance(packet, dict) else None
            if packet_id and _readable(hub, packet_id):
                # Not someone else's id: our own packet, refused for another reason (e.g. it
                # lives in another scope). The hub's message says what to do.
                raise ActionError(f"{hub.host} refused the push: {exc}") from None
            raise IdTaken(hub.host, packet_id) from None
        if exc.status == 404 and team:
            raise ActionError(f"team {team!r} not found on {hub.host}; list yours with `ltm teams ls`") from None
        raise


def _readable(hub: Hub, packet_id: str) -> bool:
    try:
        hub.get_packet(packet_id)
    except HubError:
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


def fetch_packet(hub: Hub, packet_id: str):
    """(packet, response) for one id; the packet re-validated, as the contract asks of resume."""
    response = packet_call(hub.get_packet, hub, packet_id)
    try:
        packet = parse_packet(response.body)
    except PacketError as exc:
        raise ActionError(f"{hub.host} returned a packet {packet_id} that does not validate", exc.errors) from None
    return packet, response


def packet_call(method, hub: Hub, packet_id: str):
    """Call a per-packet endpoint, turning a 404 into a message that says what to do."""
    try:
        return method(packet_id)
    except HubError as exc:
        if exc.status == 404:
            raise ActionError(f"packet {packet_id} not found on {hub.host}; list yours with `ltm ls`") from None
        raise


def _loose_json(raw: bytes):
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


# --- fresh packets ---------------------------------------------------------------------------

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_ulid() -> str:
    """A ULID: 48 bits of milliseconds then 80 random bits, in Crockford base32 (26 characters)."""
    value = (int(time.time() * 1000) << 80) | secrets.randbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def utc_now() -> str:
    """The current time as RFC 3339 in UTC, to the second: 2026-04-22T09:30:00Z."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fresh_example() -> dict:
    """The protocol's example packet with a new `id` and `created_at` = now, so that anyone can
    push what `ltm example` prints (the protocol's fixed id belongs to whoever pushed it first)."""
    packet = example_packet()
    packet["id"] = new_ulid()
    packet["created_at"] = utc_now()
    return packet
