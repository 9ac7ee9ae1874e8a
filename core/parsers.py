"""Request parsing for /v1: JSON without NUL characters."""

from rest_framework import exceptions, parsers


def contains_nul(value) -> bool:
    """True when a decoded JSON value holds a NUL character in any string (key or value).

    PostgreSQL text cannot store NUL, so the hub refuses it up front with a 400 instead of
    failing on the write."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(contains_nul(key) or contains_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(contains_nul(item) for item in value)
    return False


NUL_MESSAGE = "NUL characters (\\u0000) are not allowed"


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing NUL characters (see contains_nul). A /v1 body is JSON whatever
    its declared type, as for packets: a client that sends `{}` without a Content-Type can still
    join a team."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if contains_nul(data):
            raise exceptions.ParseError(NUL_MESSAGE)
        return data
