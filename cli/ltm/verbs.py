"""What ltm does, once: the command line and the MCP server both call these and only format.

Every verb reads the stored credentials afresh, and raises an LtmError whose message says what
to do next.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from urllib.parse import quote

from ulid import ULID

from .client import Hub, normalize_host, split_invite
from .config import config_path, config_set, configured_host, host_source, load_config, read_token, write_token
from .device import device_flow
from .errors import HubRequestError, IdTaken, LtmError, PacketRejected, RedactionRefused, UsageError
from .protocol.packet import PacketError, example_packet, parse_packet, utc_now
from .protocol.redact import scan_packet
from .protocol.resume import render_resume


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
    """Store a pasted token once the hub takes it, else one from the device flow. Its path."""
    if token is not None:
        _check_pasted_token(hub, token)
        token = token.strip()
    else:
        token = device_flow(hub)
    path = write_token(token)
    config_set("host", hub.host)
    return str(path)


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
    """The host and the first 8 hex digits of sha256(token), either empty when not set."""
    host, token = configured_host(), read_token()
    fingerprint = hashlib.sha256(token.encode("utf-8")).hexdigest()[:8] if token else ""
    return {"host": normalize_host(host) if host else "", "token_hash8": fingerprint}


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


def _push(hub: Hub, raw: bytes, team: str | None) -> str:
    try:
        return hub.push(raw, team=team)
    except HubRequestError as exc:
        if exc.status == 400:
            raise PacketRejected(f"packet rejected by {hub.host}", hub_errors(str(exc))) from None
        if exc.status == 409:
            packet = _loose_json(raw)
            packet_id = packet.get("id") if isinstance(packet, dict) else None
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
    """(packet, response headers) for one id; the packet re-validated, as the contract asks."""
    hub = connect()
    response = _packet_call(hub.get_packet, hub, packet_id)
    try:
        packet = parse_packet(response.body)
    except PacketError as exc:
        raise LtmError(f"{hub.host} returned a packet {packet_id} that does not validate", exc.errors) from None
    return packet, response.headers


def pull(packet_id: str):
    """The packet's JSON as the hub serves it (not re-validated, so any stored packet comes out)."""
    hub = connect()
    data = _packet_call(hub.get_packet, hub, packet_id).json()
    if data is None:
        raise LtmError(f"{hub.host} returned a body for {packet_id} that is not JSON")
    return data


def resume(packet_id: str) -> str:
    """The resume block of one packet."""
    packet, _ = show(packet_id)
    return render_resume(packet)


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
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


# --- fresh packets ---------------------------------------------------------------------------

def example() -> dict:
    """The protocol's example packet with a new `id` and `created_at` = now, so that anyone can
    push it (the protocol's fixed id belongs to whoever pushed it first on a hub)."""
    return {**example_packet(), "id": str(ULID()), "created_at": utc_now()}


def with_defaults(packet: dict) -> dict:
    """The packet with `id` and `created_at` filled in when left out."""
    return {"id": str(ULID()), "created_at": utc_now(), **packet}


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


def create_invite(team: str) -> dict:
    """A single-use invite: {"url", "expires_at", ...}."""
    return _team_call(lambda hub: hub.create_invite(team), team)


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
