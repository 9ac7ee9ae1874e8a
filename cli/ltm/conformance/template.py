"""`${name}` placeholders in vectors, filled from a check's variables.

A string that is exactly one placeholder takes the variable's value whatever its JSON type (so
`"${interval}"` can stand for a number); elsewhere the value is written into the string.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"\$\{([A-Za-z0-9_.]+)\}")


class MissingVariable(KeyError):
    def __str__(self) -> str:
        return f"the check uses ${{{self.args[0]}}}, which no earlier step set"


def fill(value, variables: dict):
    """`value` (any JSON value) with every placeholder in its strings (and keys) filled."""
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole:
            return _lookup(whole.group(1), variables)
        return PLACEHOLDER.sub(lambda match: str(_lookup(match.group(1), variables)), value)
    if isinstance(value, list):
        return [fill(item, variables) for item in value]
    if isinstance(value, dict):
        return {fill(key, variables): fill(item, variables) for key, item in value.items()}
    return value


def _lookup(name: str, variables: dict):
    if name not in variables:
        raise MissingVariable(name)
    return variables[name]
