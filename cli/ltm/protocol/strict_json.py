"""The protocol's JSON reader: json.loads with the limits a hub needs against hostile input.

Python's json accepts things no packet needs and some that break whoever stores or re-encodes the
value: NaN and Infinity, nesting deep enough to exhaust the interpreter's stack, integers past
Python's 4,300-digit conversion limit, floats that overflow to infinity, and strings holding lone
UTF-16 surrogates (`"\\ud800"`), which no UTF-8 encoder (PostgreSQL's, SQLite's, ours) accepts.
Each is refused here with a message that says what was wrong.
"""

from __future__ import annotations

import json
import math
import re

MAX_DEPTH = 32  # a packet nests 3 levels deep; every body of the wire API fewer
MAX_NUMBER_LENGTH = 100  # characters of one number literal
TOO_DEEP = f"nested more than {MAX_DEPTH} levels deep"


class JSONLimitError(ValueError):
    """Valid JSON syntax that the protocol still refuses; `str()` says why."""


def _reject_constant(name: str):
    raise JSONLimitError(f"{name} is not allowed")


def _integer(literal: str) -> int:
    if len(literal) > MAX_NUMBER_LENGTH:
        raise JSONLimitError(f"a number has more than {MAX_NUMBER_LENGTH} digits")
    return int(literal)


def _float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_LENGTH:
        raise JSONLimitError(f"a number has more than {MAX_NUMBER_LENGTH} digits")
    value = float(literal)
    if not math.isfinite(value):
        raise JSONLimitError(f"the number {literal} is too large")
    return value


def loads(text: str):
    """The decoded value of `text`; json.JSONDecodeError for bad syntax, JSONLimitError for
    syntax that is valid but refused (see the module docstring)."""
    value = _decode(text, parse_constant=_reject_constant, parse_int=_integer, parse_float=_float)
    if _might_break_limits(text):
        _walk(value, check_strings=True)
    return value


def loads_loosely(text: str):
    """json.loads with only the nesting limit of `loads`: for JSON the client reads without
    vouching for it (a hub's answer, a packet pushed with --lenient), so that what handles the
    value next (an encoder, a comparison) cannot exhaust the stack either. A ValueError
    (json.JSONDecodeError, JSONLimitError, ...) for what it cannot read."""
    value = _decode(text)
    if text.count("{") + text.count("[") > MAX_DEPTH:
        check_depth(value)
    return value


def check_depth(value) -> None:
    """JSONLimitError when a decoded value (JSON, or TOML: the same dicts and lists) nests more
    than MAX_DEPTH levels deep; walked without recursion."""
    _walk(value, check_strings=False)


def _decode(text: str, **hooks):
    try:
        return json.loads(text, **hooks)
    except RecursionError:  # the decoder recurses once a level: deep input exhausts the stack
        raise JSONLimitError(TOO_DEEP) from None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _might_break_limits(text: str) -> bool:
    """Whether the value decoded from `text` needs the walk below: it can nest deeper than
    MAX_DEPTH only with that many brackets, and hold a lone surrogate only through an escape
    (`\\ud800`) or one in the text itself. Scanning the text is a tenth of walking the value,
    and a packet passes it."""
    if text.count("{") + text.count("[") > MAX_DEPTH or _SURROGATE_ESCAPE.search(text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _walk(value, check_strings: bool) -> None:
    """Walk the value without recursion: refuse deep nesting and, if asked, lone surrogates in any
    string (keys included)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if check_strings:
                _check_string(item)
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                raise JSONLimitError(TOO_DEEP)
            if isinstance(item, dict):
                for key, member in item.items():
                    if check_strings:
                        _check_string(key)
                    pending.append((member, depth + 1))
            else:
                pending.extend((member, depth + 1) for member in item)


def _check_string(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise JSONLimitError("a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not text") from None
