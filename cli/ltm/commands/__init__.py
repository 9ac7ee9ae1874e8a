"""The commands of `ltm`, one module per group. Each module's `register(add)` declares its
commands with `add(name, handler, help)`; a handler parses its arguments, calls the verb and
formats, and returns the exit code."""

from __future__ import annotations

import argparse

from .. import verbs
from ..output import note


def act(verb: str, arguments: str, done: str, *, prints: bool = True):
    """The handler of a command that does one thing to what it names: it calls
    `verbs.<verb>(args.<argument>, ...)` with the command's arguments named in `arguments`
    (separated by spaces), prints what the verb answers (if anything, unless not `prints`), and
    notes `done`, formatted with the command's arguments by name and the answer as {answer}."""

    def handler(args) -> int:
        answer = getattr(verbs, verb)(*(getattr(args, argument) for argument in arguments.split()))
        if answer is not None and prints:
            print(answer)
        note(done.format(**vars(args), answer=answer))
        return 0

    return handler


def whole_number(low: int, high: int):
    """An argparse type: a whole number from `low` to `high`. Anything else is a usage error that
    names the range, where the hub would quietly use its default instead."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low} to {high}, not {text!r}")
        return value

    return parse
