"""What ltm does, once: the command line and the MCP server both call these and only format.

Every verb reads the stored credentials afresh, and raises an LtmError whose message says what
to do next.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from .client import Hub, normalize_host, split_invite
from .config import config_path, config_set, configured_host, host_source, load_config, read_token, write_token
from .device import device_flow
from .errors import HubRequestError, IdTaken, LtmError, PacketRejected, RedactionRefused, UsageError
from .protocol.packet import PacketError, fresh_example, parse_packet
from .protocol.redact import scan_packet
from .protocol.resume import render_resume
from .protocol.strict_json import JSONLimitError, loads_loosely
from .protocol.tools import thread_lineage
from .protocol.tokens import token_checksum, token_hint


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


# --- signing in ------------------------------------------------------------------------------

def sign_in_hub(host: str | None) -> Hub:
    """The hub `ltm auth [host]` signs in to: the given address, else the configured one."""
    if host:  # typed on the command line: needs no hint where it came from
        return Hub(host)
    configured = configured_host()
    if not configured:
        raise UsageError("which hub? run `ltm auth <host>`, e.g. `ltm auth https://hub.example.com`")
    return Hub(configured, source=host_source())


def sign_in(hub: Hub, token: str | None = None) -> str:
    """Store a pasted token once the hub takes it, else one from the device flow. Its path. The
    hub then holds the token."""
    if token is not None:
        _check_pasted_token(hub, token)
        token = token.strip()
    else:
        token = device_flow(hub)
    path = write_token(token)
    config_set("host", hub.host)
    hub.token = token
    return str(path)


def account_of(hub: Hub) -> dict | None:
    """Who the hub's token signs in as (GET /v1/me), or None when the hub cannot say (a hub
    without that endpoint, or none reachable): a sign-in does not fail for it."""
    try:
        me = hub.me()
    except HubRequestError:
        return None
    return me if isinstance(me, dict) else None


def account_label(me: dict) -> str:
    """`Ada (ada@example.org)`, or the name alone for an account without an email."""
    name = me.get("display_name") or me.get("username") or "?"
    return f"{name} ({me['email']})" if me.get("email") else name


def _check_pasted_token(hub: Hub, token: str) -> None:
    """GET /v1/healthz (is it a hub?) then GET /v1/packets?limit=1 (does it take the token?)."""
    health = hub.healthz()
    if not isinstance(health, dict) or health.get("ok") is not True:
        raise LtmError(f"{hub.host} does not answer like an ltm hub (GET /v1/healthz)")
    hub.token = token.strip()
    try:
        hub.list_packets(limit=1)
    except HubRequestError as exc:
        if exc.status == 401:
            raise LtmError(
                f"{hub.host} rejected this token; copy it again from the dashboard, "
                f"or run `ltm auth {hub.host}` to sign in in the browser"
            ) from None
        raise


def overriding_host(host: str) -> str | None:
    """LTM_HUB_URL when it names another hub than `host`: it wins over the stored host."""
    overriding = os.environ.get("LTM_HUB_URL")
    return overriding if overriding and normalize_host(overriding) != host else None


def whoami() -> dict:
    """The host and the first 8 hex digits of sha256(token) (the hub shows the same hint on the
    token's row, see ltm.protocol.tokens); LtmError when either is not set."""
    host, token = configured_host(), read_token()
    if not host or not token:
        raise LtmError(f"not signed in; run `ltm auth {normalize_host(host) if host else '<host>'}`")
    return {"host": normalize_host(host), "token_hash8": token_hint(token_checksum(token))}


def whoami_with_account() -> tuple[dict, str | None]:
    """whoami(), plus `account` (id, username, display_name, email) and `token` (kind, name, hint,
    scopes, created_at, expires_at) from the hub's GET /v1/me. The second value says why the hub
    could not tell, if it could not."""
    identity = whoami()
    hub = Hub(identity["host"], read_token(), timeout=10, source=host_source())
    try:
        me = hub.me()
    except HubRequestError as exc:
        return identity, str(exc)
    token = me.pop("token", None)
    identity["account"] = me
    if token is not None:
        identity["token"] = token
    return identity, None


def set_display_name(name: str) -> dict:
    """The name teammates see (PATCH /v1/me); empty shows the username. The account."""
    return connect().set_display_name(name)


def dashboard_url() -> str:
    host = configured_host()
    if not host:
        raise LtmError("no hub configured; run `ltm auth <host>` or `ltm config set host <url>`")
    return normalize_host(host) + "/"


# --- packets ---------------------------------------------------------------------------------

@dataclass
class Pushed:
    host: str
    id: str


def push(raw: bytes, *, team: str | None = None, lenient: bool = False,
         allow_unredacted: bool = False) -> Pushed:
    """Check the packet (validation unless lenient, redaction unless allowed), then push it."""
    packet = check_for_push(raw, lenient=lenient, allow_unredacted=allow_unredacted)
    hub = connect()
    packet_id = _push(hub, raw, team)
    return Pushed(hub.host, packet_id or (packet or {}).get("id", ""))


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


def _push(hub: Hub, raw: bytes, team: str | None) -> str:
    try:
        return hub.push(raw, team=team)
    except HubRequestError as exc:
        if exc.status == 400:
            raise PacketRejected(f"packet rejected by {hub.host}", hub_errors(str(exc))) from None
        if exc.status == 409:
            packet_id = _packet_id(raw)
            if packet_id and _readable(hub, packet_id):
                # Not someone else's id: our own packet, refused for another reason (e.g. it
                # lives in another scope). The hub's message says what to do.
                raise LtmError(f"{hub.host} refused the push: {exc}") from None
            raise IdTaken(hub.host, packet_id) from None
        if exc.status == 404 and team:
            raise _no_team(hub, team) from None
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
    return connect().list_packets(limit=limit, team=team)


def search(text: str, team: str | None = None, limit: int | None = None) -> list[dict]:
    """The packets that match `text` (the hub's web-search syntax), best first:
    [{id, created_at, goal, team, snippet, score}]."""
    if not text.strip():
        raise UsageError('what should ltm search for? e.g. `ltm search flaky test` or `ltm search \'"exact phrase" -word\'`')
    if team:
        return _team_call(lambda hub: hub.search(text, team=team, limit=limit), team)
    return connect().search(text, limit=limit)


def show(packet_id: str) -> tuple[dict, dict]:
    """(packet, response headers) for one id, or for a public link; the packet re-validated, as
    the contract asks."""
    if public_link(packet_id):
        hub, response = _public_packet(packet_id)
    else:
        hub = connect()
        response = _packet_call(hub.get_packet, hub, packet_id)
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
        response = _packet_call(hub.get_packet, hub, packet_id)
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
            raise LtmError(f"{link} is not a published packet (any more): its owner may have unpublished "
                           "it; ask them for a new link") from None
        raise


# --- threads ---------------------------------------------------------------------------------

def thread(packet_id: str) -> list[dict]:
    """The packet's thread (parent_id chain) as far as the person may read it, oldest first."""
    hub = connect()
    return _packet_call(hub.thread, hub, packet_id)


def resume_thread(packet_id: str) -> str:
    """The resume block of the newest packet of the thread that holds `packet_id`, with the
    locked decisions and failed attempts of the packets it continues carried in."""
    latest, lineage = thread_lineage(thread(packet_id))
    packet, _ = show(latest)
    return render_resume(packet, [show(ancestor)[0] for ancestor in lineage])


# --- export and import -----------------------------------------------------------------------

EXPORT_FORMATS = ("jsonl", "markdown")


@contextmanager
def export(format: str = "jsonl", team: str | None = None):
    """Stream everything the person may read (or a team's): yields (packet count or None, chunks)."""
    if format not in EXPORT_FORMATS:
        raise UsageError(f"--format must be one of {', '.join(EXPORT_FORMATS)}; got {format!r}")
    hub = connect()
    try:
        with hub.export(format, team) as stream:
            yield stream
    except HubRequestError as exc:
        if exc.status == 404 and team:
            raise _no_team(hub, team) from None
        raise


@dataclass
class Imported:
    line: int
    id: str
    outcome: str  # "pushed", "already there" or "refused"
    reason: str = ""


def import_packets(lines, *, team: str | None = None, allow_unredacted: bool = False):
    """Push each packet of a JSON-lines file (an iterable of byte lines), with push's validation
    and redaction pre-flight. A packet the hub already serves exactly so is left alone, so a
    second run changes nothing. Yields an Imported per packet; a refusal does not stop the run."""
    hub = connect()
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        packet_id = _packet_id(raw)
        try:
            packet = check_for_push(raw, allow_unredacted=allow_unredacted)
            if _served_as(hub, packet):
                yield Imported(number, packet_id, "already there")
                continue
            _push(hub, raw, team)
        except HubRequestError as exc:
            if exc.status is None or exc.status >= 500:
                raise  # the hub is unreachable or failing: stop, the next run picks up from here
            yield Imported(number, packet_id, "refused", exc.report())
        except LtmError as exc:
            yield Imported(number, packet_id, "refused", exc.report())
        else:
            yield Imported(number, packet_id, "pushed")


def _served_as(hub: Hub, packet: dict) -> bool:
    """True when the hub already serves this very packet to the person."""
    try:
        return hub.get_packet(packet["id"]).json() == packet
    except HubRequestError as exc:
        if exc.status == 404:
            return False
        raise


def rm(packet_id: str) -> None:
    hub = connect()
    _packet_call(hub.delete_packet, hub, packet_id)


def publish(packet_id: str) -> str:
    """Publish a packet; its public URL."""
    hub = connect()
    return str(_packet_call(hub.publish, hub, packet_id).get("public_url", ""))


def unpublish(packet_id: str) -> None:
    hub = connect()
    _packet_call(hub.unpublish, hub, packet_id)


def _packet_call(method, hub: Hub, packet_id: str):
    """Call a per-packet endpoint, turning a 404 into a message that says what to do."""
    try:
        return method(packet_id)
    except HubRequestError as exc:
        if exc.status == 404:
            raise LtmError(f"packet {packet_id} not found on {hub.host}; list yours with `ltm ls`") from None
        raise


def _loose_json(raw: bytes):
    """The decoded JSON, None when it is not JSON; JSONLimitError when it nests too deep."""
    try:
        return loads_loosely(raw.decode("utf-8"))
    except JSONLimitError:
        raise
    except ValueError:  # not UTF-8, not JSON, or a number too long for Python
        return None


def _packet_id(raw: bytes) -> str:
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


# --- teams, invites, account -----------------------------------------------------------------

def create_team(name: str) -> str:
    """Create a team; its name as the hub spells it."""
    return connect().create_team(name).get("name", name)


def delete_team(name: str) -> None:
    _team_call(lambda hub: hub.delete_team(name), name)


def list_teams() -> list[dict]:
    return connect().list_teams()


def team_members(name: str) -> list[dict]:
    return _team_call(lambda hub: hub.team_members(name), name)


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

    _team_call(leave, name)


def create_invite(team: str, email: str | None = None, label: str | None = None) -> dict:
    """A single-use invite: {"url", "expires_at", ...}; with `email`, the hub also mails it."""
    return _team_call(lambda hub: hub.create_invite(team, email=email, label=label), team)


def team_log(name: str, limit: int | None = None, before: int | None = None, kind: str | None = None) -> dict:
    """A page of the team's activity log, newest first: {"events": [...], "next_before": id or None}."""
    return _team_call(lambda hub: hub.team_events(name, limit=limit, before=before, kind=kind), name)


def _team_call(call, name: str):
    hub = connect()
    try:
        return call(hub)
    except HubRequestError as exc:
        if exc.status == 404:
            raise _no_team(hub, name) from None
        raise


def _no_team(hub: Hub, name: str) -> LtmError:
    return LtmError(f"team {name!r} not found on {hub.host}; list yours with `ltm teams ls`")


@dataclass
class Joined:
    team: str
    user: str
    host: str
    named: bool  # the person chose the name (else the hub picked one, such as "member")
    token_path: str | None  # where the token of a new account went; None for a signed-in person


def join(invite: str, name: str | None = None) -> Joined:
    """Accept an invite link (or a bare code for the configured hub)."""
    base, code = split_invite(invite)
    configured = configured_host()
    if not code or (not base and "://" in invite):
        raise UsageError(f"not an invite link: {invite} (expected <hub>/v1/invites/<code>, or the code)")
    if not base and not configured:
        raise UsageError("no hub configured; pass the full invite URL (…/v1/invites/<code>)")
    host = base or normalize_host(configured)
    # Only send the stored token to the hub it was issued by.
    same_hub = configured is not None and normalize_host(configured) == host
    hub = Hub(host, read_token() if same_hub else None, source=None if base else host_source())
    display = name if name is not None else (load_config()["user"] or None)
    try:
        result = hub.accept_invite(code, display=display)
    except HubRequestError as exc:
        if exc.status == 404:
            raise LtmError(f"no such invite on {host}; check the link") from None
        raise
    token_path = None
    if result.get("token"):
        token_path = str(write_token(str(result["token"])))
        config_set("host", host)
    return Joined(
        team=(result.get("team") or {}).get("name", "?"),
        user=(result.get("user") or {}).get("display") or "?",
        host=host,
        named=bool(display),
        token_path=token_path,
    )


def claim_link() -> dict:
    """A one-time link to give an account made by `ltm join` an email and a password."""
    hub = connect()
    try:
        return hub.claim_link()
    except HubRequestError as exc:
        if exc.status in (404, 405):
            raise LtmError(f"{hub.host} does not hand out web sign-in links") from None
        raise


# --- settings --------------------------------------------------------------------------------

def edit_config() -> int:
    """Open config.toml in the config `editor`, else $EDITOR, else vi (as the Go client). The
    editor's exit code."""
    editor = load_config()["editor"] or os.environ.get("EDITOR") or "vi"
    command = shlex.split(editor) or ["vi"]
    try:
        return subprocess.call([*command, str(config_path())])
    except OSError as exc:
        raise LtmError(f"cannot run the editor {editor!r}: {exc.strerror}; "
                       "set another with `ltm config set editor <command>`") from None
