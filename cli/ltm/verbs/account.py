"""Signing in, the account and its settings: `ltm auth`, `ltm join`, `ltm account`, `ltm config edit`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass

from ..client import Hub, normalize_host, split_invite
from ..config import (
    config_path,
    config_set,
    configured_host,
    host_source,
    load_config,
    read_token,
    write_token,
)
from ..device import device_flow
from ..errors import HubRequestError, LtmError, UsageError
from ..protocol.tokens import token_identity
from .session import connect

# An invite code: at least 192 random bits (the protocol) in a URL-safe spelling; the hub's are
# 48 hex characters. Anything else is not worth asking a hub about.
INVITE_CODE = re.compile(r"[A-Za-z0-9_-]{32,256}")


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
    return token_identity(normalize_host(host), token)


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
    if not INVITE_CODE.fullmatch(code) or (not base and "://" in invite):
        raise UsageError(
            f"that is not an invite link: {invite} (an invite link looks like <hub>/v1/invites/<code>, "
            "the code being 32 or more letters and digits; a team member makes one with `ltm invite -t <team>`)"
        )
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


def edit_config() -> int:
    """Open config.toml in the config `editor`, else $EDITOR, else vi (as the Go client). The
    editor's exit code."""
    editor = load_config()["editor"] or os.environ.get("EDITOR") or "vi"
    command = shlex.split(editor) or ["vi"]
    try:
        return subprocess.call([*command, str(config_path())])
    except OSError as exc:
        raise LtmError(
            f"cannot run the editor {editor!r}: {exc.strerror}; set another with `ltm config set editor <command>`"
        ) from None
