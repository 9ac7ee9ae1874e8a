"""The `ltm` command line: the parser built from the command groups, and the exit codes.

Exit codes: 0 success, 1 failure, 2 usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys

from . import __version__
from .commands import (
    account,
    auth,
    config,
    conformance,
    dashboard,
    findings,
    mcp,
    packets,
    recall,
    teams,
    threads,
    webhooks,
)
from .errors import LtmError, UsageError
from .output import note, silence_stdout

# In the order `ltm --help` lists the commands.
REGISTER = (
    auth.register,
    packets.register,
    threads.register,
    teams.register,
    packets.register_example,
    packets.register_search,
    recall.register,
    packets.register_shares,
    findings.register,
    webhooks.register,
    account.register,
    config.register,
    dashboard.register,
    mcp.register,
    conformance.register,
)


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
        note(str(exc))
        return 2
    except LtmError as exc:
        note(exc.report())
        return 1
    except KeyboardInterrupt:
        note("cancelled")
        return 130
    except BrokenPipeError:  # `ltm ls | head`: the reader left; stop quietly
        silence_stdout()
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ltm",
        description="Save the state of an AI coding session as a packet, and resume it anywhere.",
    )
    parser.add_argument("--version", action="version", version=f"ltm (python) {__version__}")
    commands = parser.add_subparsers(metavar="<command>")

    def add(name, handler, help, aliases=()):
        sub = commands.add_parser(name, help=help, description=help, aliases=list(aliases))
        sub.set_defaults(handler=handler)
        return sub

    for register in REGISTER:
        register(add)
    return parser
