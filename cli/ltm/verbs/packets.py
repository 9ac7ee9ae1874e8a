"""The packet verbs: list, search, show, pull, resume, threads, rm, publish, public links and a
fresh example. Pushing is push.py's; shares, shares.py's; the secret scan's findings, findings.py's."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..client import Hub
from ..config import load_config
from ..errors import LtmError, UsageError
from ..protocol.packet import PacketError, fresh_example, parse_packet
from ..protocol.resume import render_resume, render_thread_resume
from .findings import unless_quarantined
from .session import connect, packet_call, team_call, unless_missing


def list_packets(limit: int | None = None, team: str | None = None) -> list[dict]:
    if team:
        return team_call(lambda hub: hub.list_packets(limit=limit, team=team), team)
    return connect().list_packets(limit=limit)


def search(text: str, team: str | None = None, limit: int | None = None, mode: str | None = None) -> list[dict]:
    """The packets that match `text` (the hub's web-search syntax, or its meaning: `mode`, the
    hub's default hybrid), best first: [{id, created_at, goal, team, snippet, score, matched}]."""
    if not text.strip():
        raise UsageError(
            "what should ltm search for? e.g. `ltm search flaky test` or `ltm search '\"exact phrase\" -word'`"
        )
    if team:
        return team_call(lambda hub: hub.search(text, team=team, limit=limit, mode=mode), team)
    return connect().search(text, limit=limit, mode=mode)


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
    unpublished = (
        f"{link} is not a published packet (any more): its owner may have unpublished it; ask them for a new link"
    )
    return hub, unless_missing(lambda: hub.public_packet(path), unpublished)


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

    def post(packet_id: str) -> dict:
        return unless_quarantined(lambda: hub.publish(packet_id), hub, packet_id, "published")

    return str(packet_call(post, hub, packet_id).get("public_url", ""))


def unpublish(packet_id: str) -> None:
    hub = connect()
    packet_call(hub.unpublish, hub, packet_id)


# --- fresh packets ---------------------------------------------------------------------------


AUTHOR_MAX = 128  # provenance.author_human's maxLength
WHO_TIMEOUT = 5  # seconds `ltm example` waits for the hub to say who is signed in


def example() -> dict:
    """The example packet, fresh, by the person: config `user` (LTM_USER), else the account the
    stored token signs in as (GET /v1/me), else "example"."""
    author = load_config()["user"] or _signed_in_name()
    return fresh_example(str(author)[:AUTHOR_MAX] if author else None)


def _signed_in_name() -> str | None:
    """The signed-in person's name, None when there is none or the hub cannot say (offline, or
    a hub without GET /v1/me): an example needs no hub."""
    try:
        hub = connect()
        hub.timeout = WHO_TIMEOUT
        me = hub.me()
    except LtmError:
        return None
    return (me.get("display_name") or me.get("username") or None) if isinstance(me, dict) else None
