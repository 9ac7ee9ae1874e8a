"""The one reader of /v1 request bodies: JSON within the protocol's limits, holding only text the
database can store. Every endpoint reads its body through `read_json_body` (DRF views through
JSONParser, the packets endpoint directly), so a hostile body gets the same 400 everywhere."""

import json

from rest_framework import exceptions, parsers

from core.errors import BadRequest
from ltm.protocol import strict_json

NUL_MESSAGE = "NUL characters (\\u0000) are not allowed"


def contains_nul(value) -> bool:
    """True when a decoded JSON value holds a NUL character in any string (key or value).

    PostgreSQL text cannot store NUL, so the hub refuses it up front with a 400 instead of
    failing on the write. (Values reach here within strict_json's depth limit.)"""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(key) or contains_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(contains_nul(item) for item in value)
    return False


def read_json_body(raw: bytes, *, empty=None):
    """The decoded body; `empty` when there is none. BadRequest says what was wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"the body is not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        return empty
    try:
        value = strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except strict_json.JSONLimitError as exc:
        raise BadRequest(f"invalid JSON: {exc}") from None
    # JSON has no raw control characters in strings: a NUL arrives only as the escape.
    if "\\u0000" in text and contains_nul(value):
        raise BadRequest(NUL_MESSAGE)
    return value


class JSONParser(parsers.BaseParser):
    """DRF's parser for /v1: the body through read_json_body. A /v1 body is JSON whatever its
    declared type, as for packets: a client that sends `{}` without a Content-Type can still join
    a team."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return read_json_body(stream.read() if stream is not None else b"", empty={})
        except BadRequest as exc:
            raise exceptions.ParseError(exc.message) from None
