"""`ltm account claim`: web sign-in for an account that `ltm join` made."""

from __future__ import annotations

from .. import verbs
from ..output import note


def register(add) -> None:
    account = add("account", None, "your account on the hub: `ltm account claim`")
    account_verbs = account.add_subparsers(metavar="<action>", required=True)
    account_verbs.add_parser(
        "claim", help="a one-time link to set an email and password for an account made by `ltm join`",
        description="print a one-time link where an account made by `ltm join` gets an email and a "
                    "password, to sign in on the hub's web pages",
    ).set_defaults(handler=cmd_account_claim)


def cmd_account_claim(args) -> int:
    link = verbs.claim_link()
    print(link.get("url", ""))
    note("open it in a browser to give this account an email and a password for the hub's web pages; "
         f"it works once and expires {link.get('expires_at', 'within the hour')}")
    return 0
