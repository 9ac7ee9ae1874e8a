"""`ltm account claim`: web sign-in for an account that `ltm join` made; `ltm account set-name`:
the name teammates see."""

from __future__ import annotations

from .. import verbs
from ..output import note


def register(add) -> None:
    account = add("account", None, "your account on the hub: `ltm account claim`, `ltm account set-name NAME`")
    account_verbs = account.add_subparsers(metavar="<action>", required=True)
    account_verbs.add_parser(
        "claim",
        help="a one-time link to set an email and password for an account made by `ltm join`",
        description="print a one-time link where an account made by `ltm join` gets an email and a "
        "password, to sign in on the hub's web pages",
    ).set_defaults(handler=cmd_account_claim)
    set_name = account_verbs.add_parser(
        "set-name",
        help="set the name your teammates see (empty: your username)",
        description="set the display name your teammates see instead of your username",
    )
    set_name.add_argument("name", help='e.g. "Ada Lovelace"; "" shows your username again')
    set_name.set_defaults(handler=cmd_account_set_name)


def cmd_account_claim(args) -> int:
    link = verbs.claim_link()
    print(link.get("url", ""))
    note(
        "open it in a browser to give this account an email and a password for the hub's web pages; "
        f"it works once and expires {link.get('expires_at', 'within the hour')}"
    )
    return 0


def cmd_account_set_name(args) -> int:
    me = verbs.set_display_name(args.name)
    print(me.get("display_name", ""))
    note("teammates now see you as " + (me.get("display_name") or "your username"))
    return 0
