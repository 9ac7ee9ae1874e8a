"""`ltm conformance URL --token T`: run the protocol's checks against any ltm server."""

from __future__ import annotations

import argparse
import random
import sys
import time

from ..conformance import federation, fuzz, report, vectors
from ..conformance.runner import Runner
from ..errors import LtmError, UsageError

DESCRIPTION = """\
Check an ltm server against the protocol: push, pull, list and delete for v0.1 and v0.2
packets, validation, identity, the 404 rules, authentication, teams and invites, publish,
the device flow and the list's order and limits, plus this hub's extensions (search,
threads, shares, findings), each in its own group; given a second hub (--peer), the
federation checks between the two.

Each check quotes the sentence it enforces and names the document it quotes: the protocol
reference (the protocol's README) for the core groups, this hub's pages for its extensions.
It prints PASS, FAIL (with the exact request, what came back and what was expected) or SKIP
(with why: a second account not given, or a capability the server's own answers say it lacks,
such as public pages on a server without POST /v1/packets/{id}/publish).
The exit code is 0 when nothing failed, 1 otherwise.

The checks create only packets and teams with fresh ids and names, and delete them when
they end: the kit can run against a live server. Give two accounts' tokens for the checks
between accounts (404 rules, invites, conflicts). The checks are data, JSON files any
runner can read: see the docs page "Conformance kit".
"""


def register(add) -> None:
    groups = [group["group"] + (" (extension)" if group.get("extension") else "") for group in vectors.groups()]
    command = add("conformance", cmd_conformance, "check an ltm server against the protocol (a conformance kit)")
    command.description = DESCRIPTION
    command.formatter_class = argparse.RawDescriptionHelpFormatter
    command.epilog = "groups, in the order they run: " + ", ".join(groups)
    command.add_argument("url", help="the server's base URL, e.g. http://127.0.0.1:8000")
    command.add_argument("--token", required=True, help="a bearer token of an account the kit may use (read and write)")
    command.add_argument("--token2", help="a second account's token; without it, the checks between accounts skip")
    command.add_argument(
        "--only",
        action="append",
        metavar="GROUP",
        help="run only this group (repeat it, or separate groups with commas)",
    )
    command.add_argument("--format", choices=report.FORMATS, default="text", help="how to report (default: text)")
    command.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE; progress goes to stdout")
    command.add_argument(
        "--fuzz", type=int, default=0, metavar="N", help="also send N hostile requests: none may get a 5xx or hang 5 s"
    )
    command.add_argument("--seed", type=int, help="the fuzz's seed, to replay a run (printed with every fuzz run)")
    command.add_argument(
        "--timeout", type=float, default=10.0, metavar="SECONDS", help="the longest a check's request may take"
    )
    command.add_argument(
        "--peer",
        metavar="URL",
        help="a second hub's base URL: also run the federation checks (an extension) between them",
    )
    command.add_argument("--peer-token", help="an account's token on the second hub, for the share across the two")


def cmd_conformance(args) -> int:
    wanted = [name.strip() for value in args.only or [] for name in value.split(",") if name.strip()]
    others = [name for name in wanted if name != federation.GROUP]
    chosen = [] if wanted and not others else _groups(others or None)
    federating = bool(args.peer) and (not wanted or federation.GROUP in wanted)
    if args.fuzz < 0:
        raise UsageError("--fuzz must be 0 or more")
    runner = Runner(args.url, args.token, args.token2, timeout=args.timeout)
    # The text report streams a line per check as it ends (to the terminal when -o takes the
    # report); JSON and JUnit are written whole at the end.
    streaming = args.format == "text" or bool(args.output)
    show = (lambda text: print(text, flush=True)) if streaming else (lambda text: None)
    started, results, notes = time.monotonic(), [], []
    for group in chosen:
        for check in group["checks"]:
            results.append(runner.check(group, check))
            show(report.line(results[-1]))
    if federating:
        for result in federation.run(args.url, args.peer, args.token, args.peer_token, args.timeout):
            results.append(result)
            show(report.line(result))
    if args.fuzz:
        seed = args.seed if args.seed is not None else random.randrange(1, 10**9)
        notes.append(f"fuzz: {args.fuzz} requests, seed {seed} (replay: --fuzz {args.fuzz} --seed {seed})")
        show(notes[-1])
        for result in fuzz.run(runner, args.fuzz, seed):
            results.append(result)
            show(report.line(result))
    leftovers = [f"left behind (delete by hand): {leftover}" for leftover in runner.leftovers]
    notes += leftovers
    seconds = time.monotonic() - started
    if args.output:
        _write(args.output, report.WRITERS[args.format](results, runner.base, seconds, notes))
    if streaming:
        show("\n".join([*leftovers, report.summary(results, runner.base, seconds)]))
    else:
        sys.stdout.write(report.WRITERS[args.format](results, runner.base, seconds, notes))
    return 1 if any(result.outcome == "fail" for result in results) else 0


def _groups(only: list[str] | None) -> list[dict]:
    everything = list(vectors.groups())
    if not only:
        return everything
    wanted = [name.strip() for value in only for name in value.split(",") if name.strip()]
    known = {group["group"] for group in everything}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise UsageError(f"no group {', '.join(unknown)}; the groups are: {', '.join(sorted(known))}")
    return [group for group in everything if group["group"] in wanted]


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise LtmError(f"cannot write {path}: {exc.strerror}") from None
