"""Log lines without secrets, plain or as JSON (LOG_FORMAT).

Some secrets travel in URLs: an invite link (`/v1/invites/<code>`), a claim link
(`/claim/<code>`), the device flow's `/device?user_code=...`, allauth's password-reset and
email-confirmation keys, and any of them again inside a sign-in page's `?next=`. Whoever reads
the logs must not be able to use them, so every log line (Django's, runserver's, and the web
server's own lines and access log, whose loggers web.py gives this filter) passes through
`mask_secrets` first.
"""

import logging
import re

from pythonjsonlogger.json import JsonFormatter

MASK = "***"

_SLASH = r"(?:/|%2F)"
_PATH_SECRETS = re.compile(
    rf"({_SLASH}(?:v1{_SLASH}invites|claim|accounts{_SLASH}password{_SLASH}reset{_SLASH}key"
    rf"|accounts{_SLASH}confirm-email){_SLASH})(?:(?!%2F|%3F|%26)[^/?&#\s\"'])+",
    re.IGNORECASE,
)
_QUERY_SECRETS = re.compile(
    r"((?:[?&]|%3F|%26)(?:user_code|device_code|code|key|token|access_token|refresh_token)(?:=|%3D))"
    r"(?:(?!%26)[^&#\s\"'])+",
    re.IGNORECASE,
)
_BEARER = re.compile(r"(Bearer\s+)[^\s\"',]+", re.IGNORECASE)
_HUB_TOKEN = re.compile(r"ltm_[A-Za-z0-9_-]+")


# A word each pattern above needs, lower-cased: a line with none of them (most access lines) has
# nothing to mask, and is not run through the patterns.
_CLUES = ("invites", "claim", "password", "confirm-email", "=", "%3d", "bearer", "ltm_")


def mask_secrets(text: str) -> str:
    lowered = text.lower()
    if not any(clue in lowered for clue in _CLUES):
        return text
    text = _PATH_SECRETS.sub(rf"\g<1>{MASK}", text)
    text = _QUERY_SECRETS.sub(rf"\g<1>{MASK}", text)
    text = _BEARER.sub(rf"\g<1>{MASK}", text)
    return _HUB_TOKEN.sub(f"ltm_{MASK}", text)


class MaskSecrets(logging.Filter):
    """Rewrites a record's message with its secrets masked (the arguments are merged in first,
    since a path usually arrives as one: `Not Found: %s`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_secrets(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


class JsonLines(JsonFormatter):
    """LOG_FORMAT=json: one JSON object a line (python-json-logger) with the time, level, logger,
    message and request id, and whatever a record carries besides (the request line's route,
    status, duration and user id). The whole line is masked as a message is, so that a secret in
    a traceback or an extra field is masked too."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("rename_fields", {"levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", "time")
        super().__init__(*args or ("{levelname}{name}{message}{request_id}",), style="{", **kwargs)

    def format(self, record: logging.LogRecord) -> str:
        if not hasattr(record, "request_id"):
            record.request_id = "-"  # granian's own lines, before Django's filters exist
        return mask_secrets(super().format(record))
