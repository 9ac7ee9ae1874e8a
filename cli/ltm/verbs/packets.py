"""The packet verbs: push, list, search, show, pull, resume, threads, rm, publish, public links,
shares (a packet handed to one person by username) and the hub's secret-scan findings."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode, urlsplit

from ..client import Hub
from ..config import load_config
from ..errors import (
    HubRequestError,
    IdTaken,
    LtmError,
    PacketRejected,
    RedactionRefused,
    UsageError,
)
from ..protocol.packet import PacketError, fresh_example, parse_packet
from ..protocol.redact import finding_line, scan_packet
from ..protocol.resume import render_resume, render_thread_resume
from ..protocol.strict_json import JSONLimitError, loads_loosely
from .session import connect, no_team, packet_call, team_call, unless_missing


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


def _unless_quarantined(call, hub: Hub, packet_id: str, doing: str):
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
        response = hub.call("POST", "/v1/packets" + _team_query(team), raw=raw, expect=(200, 201, 422))
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
    data = _answer(hub, response)
    findings = [finding for finding in data.get("findings") or [] if isinstance(finding, dict)]
    if response.status == 422:  # this hub's refusal names its findings; any other 422 is only an error
        if not findings:
            raise HubRequestError(str(data.get("error") or f"{hub.host} refused the packet (HTTP 422)"), 422)
        raise SecretsRefused(hub.host, findings)
    return str(data.get("id", "")), findings


def _team_query(team: str | None) -> str:
    return "?" + urlencode({"team": team}) if team else ""


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
        return _unless_quarantined(lambda: hub.publish(packet_id), hub, packet_id, "published")

    return str(packet_call(post, hub, packet_id).get("public_url", ""))


def unpublish(packet_id: str) -> None:
    hub = connect()
    packet_call(hub.unpublish, hub, packet_id)


# --- shares: this hub's extension; the protocol (and the Go client's hub) has none ---------------

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
            return _unless_quarantined(lambda: hub.call("POST", path, json_body=body), hub, packet_id, "shared")
        except HubRequestError as exc:
            if exc.status == 404 and str(exc) == NO_SUCH_USER:
                raise LtmError(
                    f"no such user {username!r} on {hub.host}; ask them for the username they sign in with"
                ) from None
            raise

    response = packet_call(post, hub, packet_id)
    return _answer(hub, response).get("share") or {}, response.status == 201


def shares(direction: str = INBOX, limit: int | None = None) -> list[dict]:
    """The shares with the person (INBOX) or by them (SENT), newest first, each with "seen":
    whether the recipient has read the packet since."""
    hub = connect()
    no_shares = f"{hub.host} does not share packets by username (an ltm hub extension)"
    return unless_missing(lambda: _shares(hub, direction, limit), no_shares)


def _shares(hub: Hub, direction: str, limit: int | None) -> list[dict]:
    query = urlencode({"direction": direction, **({"limit": limit} if limit else {})})
    return list(_answer(hub, hub.call("GET", f"/v1/shares?{query}", expect=(200,))).get("shares") or [])


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


# --- the hub's secret scan: this hub's extension; the protocol has none --------------------------

NO_SCAN = "{host} does not scan packets for secrets (an ltm hub extension)"


def findings(packet_id: str) -> list[dict]:
    """What the hub's secret scan found in a packet the person may read: [{path, kind, created_at,
    cleared_by, cleared_at, reason}], cleared_by and cleared_at null while a finding is open."""
    hub = connect()
    path = f"/v1/packets/{quote(packet_id, safe='')}/findings"
    response = packet_call(lambda _: hub.call("GET", path, expect=(200,)), hub, packet_id)
    return list(_answer(hub, response).get("findings") or [])


def clear_findings(packet_id: str, reason: str) -> list[dict]:
    """Vouch that a packet's findings are not secrets (its creator, or its team's owner or an
    admin): the quarantine ends and the team's log keeps who and why. The findings, cleared."""
    hub = connect()
    path = f"/v1/packets/{quote(packet_id, safe='')}/findings/clear"
    response = packet_call(
        lambda _: hub.call("POST", path, json_body={"reason": reason}, expect=(200,)), hub, packet_id
    )
    return list(_answer(hub, response).get("findings") or [])


def review_queue(team: str | None = None) -> list[dict]:
    """The open findings the person is asked to look at, the newest packets first: of their own
    packets, and of every packet of the teams they own or administer (or only `team`'s), as
    [{packet_id, goal, team, path, kind, created_at}]."""

    def queue(hub: Hub) -> list[dict]:
        response = hub.call("GET", "/v1/findings" + _team_query(team), expect=(200,))
        return list(_answer(hub, response).get("findings") or [])

    if team:
        return team_call(queue, team)
    hub = connect()
    return unless_missing(lambda: queue(hub), NO_SCAN.format(host=hub.host))


def _answer(hub: Hub, response) -> dict:
    data = response.json()
    if not isinstance(data, dict):
        raise LtmError(f"unexpected answer from {hub.host}: the body is not a JSON object")
    return data


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
