"""How results look: packet summaries, tables and JSON on stdout; notes and errors on stderr.

Results a script may want go to stdout and everything else to stderr, so pipes stay clean.
"""

from __future__ import annotations

import json
import os
import sys

from .config import load_config
from .protocol.summary import plural, summary  # noqa: F401 - the commands take plural from here
from .protocol.tool_calls import to_json  # noqa: F401 - the commands take it from here, as the tools do


def note(message: str) -> None:
    """Errors and notes go to stderr, so stdout stays clean for pipes."""
    print(f"ltm: {message}", file=sys.stderr)


def wants_json(flag: bool) -> bool:
    """--json, or the config `output = "json"`."""
    return flag or load_config()["output"] == "json"


def whoami_json(identity: dict) -> str:
    """`ltm auth whoami --json`: {"host", "token_hash8"} first, as the Go client prints them, then
    the `account` and `token` the hub reports when it can."""
    return json.dumps(identity, indent=2)


def whoami_text(identity: dict) -> str:
    """`ltm auth whoami`: the hub, the account and the token, a line each, then the token's
    fingerprint (the hint the hub's devices page shows on its row)."""
    rows = [("hub", identity["host"])]
    account = identity.get("account")
    if account:
        name, username = account.get("display_name") or account.get("username"), account.get("username")
        details = [f"username {username}" if username and username != name else "", account.get("email") or ""]
        details = [detail for detail in details if detail]
        rows.append(("account", f"{name} ({', '.join(details)})" if details else str(name)))
    token = identity.get("token")
    if token:
        scopes = " ".join(token.get("scopes") or []) or "none"
        expires = f"expires {token['expires_at']}" if token.get("expires_at") else "never expires"
        rows.append(("token", f"{token.get('name') or '?'} ({token.get('kind') or '?'}), scopes {scopes}, {expires}"))
    rows.append(("fingerprint", identity["token_hash8"]))
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label.ljust(width)}  {value}" for label, value in rows)


def packet_summary(packet: dict, headers: dict, read_from: str | None = None) -> str:
    """`ltm show`; `read_from` is the public link the packet was read from, if it was."""
    return summary(
        packet,
        public_url=header(headers, "X-LTM-Public-URL"),
        published_at=header(headers, "X-LTM-Published-At"),
        read_from=read_from,
    )


def header(headers: dict, name: str) -> str | None:
    """A response header by name, whatever its case."""
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return None


def table(head: list[str], rows: list[tuple]) -> None:
    """Print rows under a header, each column as wide as its widest cell."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(head, *rows)]
    for row in [head, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def silence_stdout() -> None:
    """Point stdout at /dev/null, so a reader that left (`ltm ls | head`) gets no more writes."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
