"""The `ltm` command line: the verbs of the Go client (protocol README, section 7), on argparse.

Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
import webbrowser
from urllib.parse import quote

from . import __version__, actions, clipboard
from .actions import ActionError
from .client import Hub, HubError, normalize_host, split_invite
from .config import (
    KEYS,
    ConfigError,
    config_get,
    config_list,
    config_path,
    config_set,
    config_unset,
    configured_host,
    host_source,
    load_config,
    read_token,
    write_token,
)
from .device import device_flow
from .packet import canonical_json
from .resume import render_resume

PICKER_SIZE = 50


class UsageError(Exception):
    """The command line itself is wrong (exit code 2)."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help (0) and on usage errors (2)
        return exc.code if isinstance(exc.code, int) else 2
    if not hasattr(args, "handler"):
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.handler(args) or 0
    except UsageError as exc:
        _err(str(exc))
        return 2
    except ActionError as exc:
        _err(exc.report())
        return 1
    except (HubError, ConfigError) as exc:
        _err(str(exc))
        return 1
    except KeyboardInterrupt:
        _err("cancelled")
        return 130
    except BrokenPipeError:  # `ltm ls | head`: the reader left; stop quietly
        _silence_stdout()
        return 1


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


# --- auth ----------------------------------------------------------------------------------

def cmd_auth(args) -> int:
    if args.host == "whoami" and args.token is None:
        return cmd_whoami(args)
    host = args.host or configured_host()
    if not host:
        raise UsageError("which hub? run `ltm auth <host>`, e.g. `ltm auth https://hub.example.com`")
    # An address typed on the command line needs no hint where it came from; a configured one does.
    hub = Hub(host, source=None if args.host else host_source())
    if args.token is not None:
        _check_pasted_token(hub, args.token)
        token = args.token.strip()
    else:
        _err(f"signing in to {hub.host}")
        token = device_flow(hub)
    path = write_token(token)
    config_set("host", hub.host)
    _err(f"signed in to {hub.host}; token stored in {path}")
    overriding = os.environ.get("LTM_HUB_URL")
    if overriding and normalize_host(overriding) != hub.host:
        _err(f"note: LTM_HUB_URL={overriding} is set and takes precedence over the stored host")
    return 0


def _check_pasted_token(hub: Hub, token: str) -> None:
    """GET /v1/healthz (is it a hub?) then GET /v1/packets?limit=1 (does it take the token?)."""
    health = hub.healthz()
    if not isinstance(health, dict) or health.get("ok") is not True:
        raise ActionError(f"{hub.host} does not answer like an ltm hub (GET /v1/healthz)")
    hub.token = token.strip()
    try:
        hub.list_packets(limit=1)
    except HubError as exc:
        if exc.status == 401:
            raise ActionError(
                f"{hub.host} rejected this token; copy it again from the dashboard, "
                f"or run `ltm auth {hub.host}` to sign in in the browser"
            ) from None
        raise


def whoami_json() -> str:
    """What the Go client prints for `ltm auth whoami` (and its MCP whoami tool answers): JSON
    with the host and the first 8 hex digits of sha256(token), either empty when not set."""
    host, token = configured_host(), read_token()
    fingerprint = hashlib.sha256(token.encode("utf-8")).hexdigest()[:8] if token else ""
    return json.dumps({"host": normalize_host(host) if host else "", "token_hash8": fingerprint}, indent=2)


def cmd_whoami(args) -> int:
    print(whoami_json())
    if not read_token():  # still exit 0, as the Go client does; the note goes to stderr
        host = configured_host()
        _err(f"not signed in; run `ltm auth {normalize_host(host) if host else '<host>'}`")
    return 0


# --- packets -------------------------------------------------------------------------------

def cmd_push(args) -> int:
    raw = _read_input(args.file)
    lenient = args.lenient or load_config()["lenient"] is True
    packet = actions.check_for_push(raw, lenient=lenient, allow_unredacted=args.allow_unredacted)
    hub = actions.connect()
    packet_id = actions.push(hub, raw, team=args.team)
    print(packet_id or (packet or {}).get("id", ""))
    where = f"team {args.team}" if args.team else "your packets"
    _err(f"pushed to {where} on {hub.host}; resume it anywhere with `ltm resume {packet_id}`")
    return 0


def cmd_ls(args) -> int:
    hub = actions.connect()
    packets = hub.list_packets(limit=args.limit, team=args.team)
    if _wants_json(args):  # the hub's shape, as the Go client prints it: {"packets": [...]}
        print(json.dumps({"packets": packets}, indent=2, ensure_ascii=False))
        return 0
    if not packets:
        if args.team:
            _err(f"no packets in team {args.team} yet; push one with `ltm push <file> -t {args.team}`")
        else:
            _err("no packets yet; push one with `ltm push <file>`")
        return 0
    rows = [(p.get("id", ""), p.get("created_at", ""), _shorten(p.get("goal", ""), 70)) for p in packets]
    _table(["ID", "CREATED", "GOAL"], rows)
    return 0


def cmd_show(args) -> int:
    hub = actions.connect()
    packet, response = actions.fetch_packet(hub, args.id)
    if _wants_json(args):
        print(canonical_json(packet), end="")
        return 0
    print(packet_summary(packet, response.headers))
    return 0


def cmd_pull(args) -> int:
    hub = actions.connect()
    response = actions.packet_call(hub.get_packet, hub, args.id)
    data = response.json()
    if data is None:
        raise ActionError(f"{hub.host} returned a body for {args.id} that is not JSON")
    print(canonical_json(data), end="")
    return 0


def cmd_rm(args) -> int:
    hub = actions.connect()
    actions.packet_call(hub.delete_packet, hub, args.id)
    _err(f"deleted {args.id}")
    return 0


def cmd_publish(args) -> int:
    hub = actions.connect()
    result = actions.packet_call(hub.publish, hub, args.id)
    print(result.get("public_url", ""))
    _err(f"published {args.id}; anyone with the link can read it. Undo with `ltm unpublish {args.id}`")
    return 0


def cmd_unpublish(args) -> int:
    hub = actions.connect()
    actions.packet_call(hub.unpublish, hub, args.id)
    _err(f"unpublished {args.id}; its public link no longer works")
    return 0


def cmd_resume(args) -> int:
    hub = actions.connect()
    packet_id = args.id or _pick_packet(hub)
    packet, _ = actions.fetch_packet(hub, packet_id)
    block = render_resume(packet)
    # As the Go client: the picker's choice goes to the clipboard, a given id to stdout.
    copy = args.copy if args.copy is not None else args.id is None
    if copy:
        tool = clipboard.copy(block)
        if tool:
            _err(f"copied the resume block of {packet_id} to the clipboard ({tool}); paste it into your agent")
            return 0
        _err("no clipboard tool found (pbcopy, wl-copy, xclip, xsel or clip.exe); printing the block instead")
    print(block, end="")
    return 0


def _pick_packet(hub: Hub) -> str:
    """Number the newest packets on stderr and read the choice from stdin."""
    packets = hub.list_packets(limit=PICKER_SIZE)
    if not packets:
        raise ActionError(
            "no personal packets to resume; push one with `ltm push <file>`, or resume a team's "
            "packet by id (`ltm ls -t <team>`, then `ltm resume <id>`)"
        )
    for number, packet in enumerate(packets, 1):
        _err(f"{number:>3}  {packet.get('created_at', '')[:16]}  {_shorten(packet.get('goal', ''), 60)}")
    sys.stderr.write(f"resume which packet? [1-{len(packets)}] ")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:  # end of input (a closed or empty pipe): nobody is there to choose
        sys.stderr.write("\n")
        raise ActionError("no packet chosen (end of input); pass the id instead: `ltm resume <id>` "
                          "(`ltm ls` lists them)")
    answer = line.strip()
    if not answer:
        raise ActionError("no packet chosen; run `ltm resume` again, or pass the id: `ltm resume <id>`")
    if not answer.isdigit() or not 1 <= int(answer) <= len(packets):
        raise UsageError(f"not a number from 1 to {len(packets)}: {answer!r}")
    return str(packets[int(answer) - 1]["id"])


def cmd_example(args) -> int:
    # A fresh id and time: the protocol's fixed id is taken by whoever pushed it first on a hub.
    print(json.dumps(actions.fresh_example(), indent=2, ensure_ascii=False))
    return 0


# --- teams and invites ---------------------------------------------------------------------

def cmd_teams_create(args) -> int:
    team = actions.connect().create_team(args.name)
    name = team.get("name", args.name)
    print(name)
    _err(f"created team {name}; invite people with `ltm invite -t {name}`")
    return 0


def cmd_teams_rm(args) -> int:
    _team_call(lambda hub: hub.delete_team(args.name), args.name)
    _err(f"deleted team {args.name} and its packets")
    return 0


def cmd_teams_ls(args) -> int:
    teams = actions.connect().list_teams()
    if _wants_json(args):
        print(json.dumps({"teams": teams}, indent=2, ensure_ascii=False))
    elif not teams:
        _err("you are in no team yet; create one with `ltm teams create <name>`")
    else:
        _table(["NAME", "ID", "CREATED"], [(t.get("name", ""), t.get("id", ""), t.get("created_at", "")) for t in teams])
    return 0


def cmd_teams_members(args) -> int:
    members = _team_call(lambda hub: hub.team_members(args.name), args.name)
    if _wants_json(args):
        print(json.dumps({"members": members}, indent=2, ensure_ascii=False))
        return 0
    rows = [(m.get("display", ""), m.get("email") or "", m.get("role", ""), m.get("joined_at", ""), m.get("user_id", ""))
            for m in members]
    _table(["NAME", "EMAIL", "ROLE", "JOINED", "USER ID"], rows)
    return 0


def cmd_teams_leave(args) -> int:
    def leave(hub: Hub):
        try:
            hub.leave_team(args.name)
        except HubError as exc:
            if exc.status == 400:  # the contract's only 400 here: the owner cannot leave
                raise ActionError(
                    f"you own team {args.name}, and an owner cannot leave; transfer the ownership on the "
                    f"team's page {hub.host}/teams/{quote(args.name, safe='')} and leave then, or delete "
                    f"the team with `ltm teams rm {args.name}`"
                ) from None
            raise

    _team_call(leave, args.name)
    _err(f"left team {args.name}")
    return 0


def cmd_invite(args) -> int:
    invite = _team_call(lambda hub: hub.create_invite(args.team), args.team)
    print(invite.get("url", ""))
    _err(f"single use, expires {invite.get('expires_at', 'in 7 days')}; the invitee runs `ltm join <url>`")
    return 0


def cmd_join(args) -> int:
    base, code = split_invite(args.invite)
    configured = configured_host()
    if not code or (not base and "://" in args.invite):
        raise UsageError(f"not an invite link: {args.invite} (expected <hub>/v1/invites/<code>, or the code)")
    if not base and not configured:
        raise UsageError("no hub configured; pass the full invite URL (…/v1/invites/<code>)")
    host = base or normalize_host(configured)
    # Only send the stored token to the hub it was issued by.
    same_hub = configured is not None and normalize_host(configured) == host
    hub = Hub(host, read_token() if same_hub else None, source=None if base else host_source())
    display = args.name if args.name is not None else (load_config()["user"] or None)
    try:
        result = hub.accept_invite(code, display=display)
    except HubError as exc:
        if exc.status == 404:
            raise ActionError(f"no such invite on {host}; check the link") from None
        raise
    team = (result.get("team") or {}).get("name", "?")
    user = (result.get("user") or {}).get("display") or "?"
    print(team)
    if result.get("token"):
        path = write_token(str(result["token"]))
        config_set("host", host)
        # Unnamed, the hub picks a name such as "member": quoted, it does not read like the role.
        who = user if display else f'user "{user}"'
        _err(f"joined team {team} as {who} (new account; run `ltm account claim` to sign in on the web)")
        _err(f"signed in to {host}; token stored in {path}")
    else:
        _err(f"joined team {team} as {user}")
    return 0


def cmd_account_claim(args) -> int:
    hub = actions.connect()
    try:
        link = hub.claim_link()
    except HubError as exc:
        if exc.status in (404, 405):
            raise ActionError(f"{hub.host} does not hand out web sign-in links") from None
        raise
    print(link.get("url", ""))
    _err("open it in a browser to give this account an email and a password for the hub's web pages; "
         f"it works once and expires {link.get('expires_at', 'within the hour')}")
    return 0


def _team_call(call, name: str):
    hub = actions.connect()
    try:
        return call(hub)
    except HubError as exc:
        if exc.status == 404:
            raise ActionError(f"team {name!r} not found on {hub.host}; list yours with `ltm teams ls`") from None
        raise


# --- config, dashboard, mcp ----------------------------------------------------------------

def cmd_config(args) -> int:
    action = args.config_action
    if action == "path":
        print(config_path())
    elif action == "list":
        for key, value in config_list():
            print(f"{key} = {value}")
    elif action == "get":
        print(config_get(args.key))
    elif action == "set":
        config_set(args.key, args.value)
    elif action == "unset":
        config_unset(args.key)
    elif action == "edit":
        return _edit_config()
    return 0


def _edit_config() -> int:
    """Open config.toml in the config `editor`, else $EDITOR, else vi (as the Go client)."""
    editor = load_config()["editor"] or os.environ.get("EDITOR") or "vi"
    command = shlex.split(editor) or ["vi"]
    try:
        code = subprocess.call([*command, str(config_path())])
    except OSError as exc:
        raise ActionError(f"cannot run the editor {editor!r}: {exc.strerror}; "
                          "set another with `ltm config set editor <command>`") from None
    return 0 if code == 0 else 1


def cmd_platform(args) -> int:
    host = configured_host()
    if not host:
        raise ActionError("no hub configured; run `ltm auth <host>` or `ltm config set host <url>`")
    url = normalize_host(host) + "/"
    print(url)
    try:
        webbrowser.open(url)
    except Exception:  # no browser on this machine: the printed URL is enough
        pass
    return 0


def cmd_mcp(args) -> int:
    from .mcp_server import serve  # the SDK is only loaded for this verb

    serve()
    return 0


# --- helpers -------------------------------------------------------------------------------

def _read_input(source: str) -> bytes:
    if source == "-":
        if sys.stdin.isatty():
            raise UsageError("pass a packet file, or pipe one in: `ltm push packet.json` or `... | ltm push -`")
        return sys.stdin.buffer.read()
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise ActionError(f"cannot read {source}: {exc.strerror}") from None


def packet_summary(packet: dict, headers: dict) -> str:
    lines = [f"{packet['id']}  ltm {packet['ltm_version']}  {packet['created_at']}"]
    if packet.get("parent_id"):
        lines.append(f"continues  {packet['parent_id']}")
    project = packet.get("project") or {}
    if project:
        lines.append(f"project    {project.get('name', '')} {project.get('ref', '')}".rstrip())
    lines.append(f"goal       {packet['goal']}")
    lines.append(f"next step  {packet['next_step']}")
    decisions = packet.get("decisions") or []
    locked = sum(1 for d in decisions if d.get("locked"))
    counts = [
        f"{plural(len(decisions), 'decision')} ({locked} locked)",
        plural(len(packet.get("attempts") or []), "attempt"),
        plural(len(packet.get("methods") or []), "method"),
        plural(len(packet.get("open_questions") or []), "open question"),
    ]
    lines.append("contains   " + ", ".join(counts))
    if packet.get("tags"):
        lines.append(f"tags       {', '.join(packet['tags'])}")
    published = _header(headers, "X-LTM-Public-URL")
    if published:
        since = _header(headers, "X-LTM-Published-At")
        lines.append(f"published  {published}" + (f" (since {since})" if since else ""))
    lines.append(f"\nresume it with `ltm resume {packet['id']}`")
    return "\n".join(lines)


def plural(count: int, word: str) -> str:
    """`1 attempt`, `2 attempts`, `0 attempts`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _header(headers: dict, name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return None


def _wants_json(args) -> bool:
    return getattr(args, "json", False) or load_config()["output"] == "json"


def _table(header: list[str], rows: list[tuple]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def _shorten(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _err(message: str) -> None:
    """Errors and notes go to stderr, so stdout stays clean for pipes."""
    print(f"ltm: {message}", file=sys.stderr)


# --- parser --------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltm",
        description="Save the state of an AI coding session as a packet, and resume it anywhere.",
    )
    parser.add_argument("--version", action="version", version=f"ltm (python) {__version__}")
    verbs = parser.add_subparsers(metavar="<command>")

    def verb(name, handler, help, aliases=()):
        sub = verbs.add_parser(name, help=help, description=help, aliases=list(aliases))
        sub.set_defaults(handler=handler)
        return sub

    auth = verb("auth", cmd_auth, "sign in: `ltm auth [host]` (browser), `ltm auth <host> <token>`, `ltm auth whoami`")
    auth.add_argument("host", nargs="?", help="hub URL (default: LTM_HUB_URL or the configured host), or `whoami`")
    auth.add_argument("token", nargs="?", help="a token from the hub's dashboard, instead of the browser sign-in")

    for name, help in (("push", "send a packet to the hub"), ("save", "save a packet to the hub (same as push)")):
        push = verb(name, cmd_push, help)
        push.add_argument("file", nargs="?", default="-", help="packet file, or - for stdin (default)")
        push.add_argument("-t", "--team", help="push into this team instead of your personal packets")
        push.add_argument("--allow-unredacted", action="store_true",
                          help="push even when the redaction pre-flight finds secrets or machine paths")
        push.add_argument("--lenient", action="store_true",
                          help="skip the local schema validation (the hub still validates and may reject); "
                               "`ltm config set lenient true` makes it the default")

    ls = verb("ls", cmd_ls, "list your packets, newest first")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.add_argument("--limit", type=int, help="how many (the hub's default is 50, at most 500)")
    ls.add_argument("-t", "--team", help="list this team's packets")

    show = verb("show", cmd_show, "show a packet")
    show.add_argument("--json", action="store_true", help="print the packet JSON")
    show.add_argument("id")

    verb("pull", cmd_pull, "print a packet's JSON").add_argument("id")
    verb("rm", cmd_rm, "delete a packet").add_argument("id")
    verb("publish", cmd_publish, "make a public read-only page for a packet").add_argument("id")
    verb("unpublish", cmd_unpublish, "take a packet's public page down").add_argument("id")

    resume = verb("resume", cmd_resume, "the resume block of a packet, for a new agent session")
    resume.add_argument("id", nargs="?", help="packet id (default: pick from the 50 newest)")
    copy = resume.add_mutually_exclusive_group()
    copy.add_argument("--copy", dest="copy", action="store_true", default=None,
                      help="copy to the clipboard (the default when no id is given: the picker)")
    copy.add_argument("--no-copy", dest="copy", action="store_false", help="print to stdout")

    teams = verb("teams", cmd_teams_ls, "manage teams: create, rm, ls, members, leave")
    team_verbs = teams.add_subparsers(metavar="<action>")
    for name, handler, help in (
        ("create", cmd_teams_create, "create a team (you own it)"),
        ("rm", cmd_teams_rm, "delete a team you own, with its packets"),
        ("members", cmd_teams_members, "list a team's members"),
        ("leave", cmd_teams_leave, "leave a team"),
    ):
        sub = team_verbs.add_parser(name, help=help, description=help)
        sub.add_argument("name")
        sub.set_defaults(handler=handler)
        if name == "members":
            sub.add_argument("--json", action="store_true", help="print JSON")
    team_ls = team_verbs.add_parser("ls", help="list your teams", description="list your teams")
    team_ls.add_argument("--json", action="store_true", help="print JSON")
    team_ls.set_defaults(handler=cmd_teams_ls)

    invite = verb("invite", cmd_invite, "create a single-use invite link (valid 7 days)")
    invite.add_argument("-t", "--team", required=True)
    join = verb("join", cmd_join, "join a team with an invite link")
    join.add_argument("invite", metavar="url-or-code")
    join.add_argument("--name", help="your name on the hub when joining creates a new account "
                                     "(default: the config `user`, if set)")
    verb("example", cmd_example, "print an example packet (with a fresh id and time, ready to push)")

    account = verb("account", None, "your account on the hub: `ltm account claim`")
    account_verbs = account.add_subparsers(metavar="<action>", required=True)
    account_verbs.add_parser(
        "claim", help="a one-time link to set an email and password for an account made by `ltm join`",
        description="print a one-time link where an account made by `ltm join` gets an email and a "
                    "password, to sign in on the hub's web pages",
    ).set_defaults(handler=cmd_account_claim)

    config = verb("config", cmd_config, f"read and change settings ({', '.join(KEYS)})")
    config_verbs = config.add_subparsers(dest="config_action", metavar="<action>", required=True)
    config_verbs.add_parser("path", help="print the config file's path")
    config_verbs.add_parser("list", help="print every setting")
    config_verbs.add_parser("get", help="print one setting").add_argument("key", choices=KEYS)
    setter = config_verbs.add_parser("set", help="change one setting")
    setter.add_argument("key", choices=KEYS)
    setter.add_argument("value")
    config_verbs.add_parser("unset", help="reset one setting").add_argument("key", choices=KEYS)
    config_verbs.add_parser("edit", help="open the config file in the config `editor`, $EDITOR or vi")

    verb("platform", cmd_platform, "open the hub's dashboard in the browser", aliases=["dashboard"])
    verb("mcp", cmd_mcp, "serve the ltm tools to an agent over MCP (stdio)")
    return parser
