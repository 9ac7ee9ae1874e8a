"""`ltm auth [host [token]]` and `ltm auth whoami`."""

from __future__ import annotations

from .. import verbs
from ..errors import UsageError
from ..output import note, wants_json, whoami_json, whoami_text


def register(add) -> None:
    auth = add("auth", cmd_auth, "sign in: `ltm auth [host]` (browser), `ltm auth <host> <token>`, `ltm auth whoami`")
    auth.add_argument("host", nargs="?", help="hub URL (default: LTM_HUB_URL or the configured host), or `whoami`")
    auth.add_argument("token", nargs="?", help="a token from the hub's dashboard, instead of the browser sign-in")
    auth.add_argument("--json", action="store_true", help="with `whoami`: print JSON")


def cmd_auth(args) -> int:
    if args.host == "whoami" and args.token is None:
        return cmd_whoami(args)
    if args.json:
        raise UsageError("--json goes with `ltm auth whoami`")
    hub = verbs.sign_in_hub(args.host)
    if args.token is None:
        note(f"signing in to {hub.host}")
    path = verbs.sign_in(hub, args.token)
    me = verbs.account_of(hub)
    note(f"token stored in {path}")
    note(f"signed in to {hub.host}" + (f" as {verbs.account_label(me)}" if me else ""))
    overriding = verbs.overriding_host(hub.host)
    if overriding:
        note(f"note: LTM_HUB_URL={overriding} is set and takes precedence over the stored host")
    return 0


def cmd_whoami(args) -> int:
    identity, problem = verbs.whoami_with_account()
    json_wanted = wants_json(args.json)
    print(whoami_json(identity) if json_wanted else whoami_text(identity))
    if problem:
        note(f"the hub did not say which account this is: {problem}")
    elif json_wanted:  # the text says so already
        note(f"signed in to {identity['host']} as {verbs.account_label(identity['account'])}")
    return 0
