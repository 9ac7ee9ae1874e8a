"""The packet verbs: push, list, search, show, pull, resume, threads, rm, publish, public links."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..client import Hub
from ..errors import (
    HubRequestError,
    IdTaken,
    LtmError,
    PacketRejected,
    RedactionRefused,
    UsageError,
)
from ..protocol.packet import PacketError, fresh_example, parse_packet
from ..protocol.redact import scan_packet
from ..protocol.resume import render_resume, render_thread_resume
from ..protocol.strict_json import JSONLimitError, loads_loosely
from .session import connect, no_team, packet_call, team_call


@dataclass
class Pushed:
    host: str
    id: str


def push(raw: bytes, *, team: str | None = None, lenient: bool = False, allow_unredacted: bool = False) -> Pushed:
    """Check the packet (validation unless lenient, redaction unless allowed), then push it."""
    packet = check_for_push(raw, lenient=lenient, allow_unredacted=allow_unredacted)
    hub = connect()
    packet_id = push_to(hub, raw, team)
    return Pushed(hub.host, packet_id or (packet or {}).get("id", ""))


def push_packet(packet: dict, *, team: str | None = None) -> Pushed:
    """Push a packet already checked (by ltm.protocol.tool_calls, for `ltm mcp`)."""
    hub = connect()
    raw = json.dumps(packet, ensure_ascii=False).encode("utf-8")
    return Pushed(hub.host, push_to(hub, raw, team) or packet["id"])


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


def push_to(hub: Hub, raw: bytes, team: str | None) -> str:
    try:
        return hub.push(raw, team=team)
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


def list_packets(limit: int | None = None, team: str | None = None) -> list[dict]:
    if team:
        return team_call(lambda hub: hub.list_packets(limit=limit, team=team), team)
    return connect().list_packets(limit=limit)


def search(text: str, team: str | None = None, limit: int | None = None) -> list[dict]:
    """The packets that match `text` (the hub's web-search syntax), best first:
    [{id, created_at, goal, team, snippet, score}]."""
    if not text.strip():
        raise UsageError(
            "what should ltm search for? e.g. `ltm search flaky test` or `ltm search '\"exact phrase\" -word'`"
        )
    if team:
        return team_call(lambda hub: hub.search(text, team=team, limit=limit), team)
    return connect().search(text, limit=limit)


def show(packet_id: str) -> tuple[dict, dict]:
    """(packet, response headers) for one id, or for a public link; the packet re-validated, as
    the contract asks."""
    if public_link(packet_id):
        hub, response = _public_packet(packet_id)
    else:
        hub = connect()
        response = packet_call(hub.get_packet, hub, packet_id)
    try:
        packet = parse_packet(response.body)
    except PacketError as exc:
        raise LtmError(f"{hub.host} returned a packet {packet_id} that does not validate", exc.errors) from None
    return packet, response.headers


def pull(packet_id: str):
    """The packet's JSON as the hub serves it (not re-validated, so any stored packet comes out);
    `packet_id` may be a public link."""
    if public_link(packet_id):
        hub, response = _public_packet(packet_id)
    else:
        hub = connect()
        response = packet_call(hub.get_packet, hub, packet_id)
    data = response.json()
    if data is None:
        raise LtmError(f"{hub.host} returned a body for {packet_id} that is not JSON")
    return data


def resume(packet_id: str) -> str:
    """The resume block of one packet (an id, or a public link)."""
    packet, _ = show(packet_id)
    return render_resume(packet)


# --- public links: /p/<slug> pages, read with no account ----------------------------------------

PUBLIC_PAGE = re.compile(r"(?P<prefix>.*)/p/(?P<slug>[A-Za-z0-9_-]+)(?:\.json)?/?")


def public_link(text: str) -> tuple[str, str] | None:
    """(hub base URL, path of the packet's JSON) for a public page's link, else None."""
    parts = urlsplit(text.strip())
    match = PUBLIC_PAGE.fullmatch(parts.path)
    if parts.scheme not in ("http", "https") or not parts.netloc or not match:
        return None
    return f"{parts.scheme}://{parts.netloc}", f"{match['prefix']}/p/{match['slug']}.json"


def _public_packet(link: str):
    """(hub, response) of a public link's JSON; no token goes along (it may be any hub)."""
    base, path = public_link(link)
    hub = Hub(base)
    try:
        return hub, hub.public_packet(path)
    except HubRequestError as exc:
        if exc.status == 404:
            raise LtmError(
                f"{link} is not a published packet (any more): its owner may have unpublished "
                "it; ask them for a new link"
            ) from None
        raise


# --- threads ---------------------------------------------------------------------------------


def thread(packet_id: str) -> list[dict]:
    """The packet's thread (parent_id chain) as far as the person may read it, oldest first."""
    hub = connect()
    return packet_call(hub.thread, hub, packet_id)


def resume_thread(packet_id: str) -> str:
    """The resume block of the newest packet of the thread that holds `packet_id`, with the
    locked decisions and failed attempts of the packets it continues carried in."""
    return render_thread_resume(thread(packet_id), lambda thread_packet_id: show(thread_packet_id)[0])


def rm(packet_id: str) -> None:
    hub = connect()
    packet_call(hub.delete_packet, hub, packet_id)


def publish(packet_id: str) -> str:
    """Publish a packet; its public URL."""
    hub = connect()
    return str(packet_call(hub.publish, hub, packet_id).get("public_url", ""))


def unpublish(packet_id: str) -> None:
    hub = connect()
    packet_call(hub.unpublish, hub, packet_id)


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


# --- fresh packets ---------------------------------------------------------------------------


def example() -> dict:
    return fresh_example()
