"""The hub's one family of errors. Services raise them; every surface shows them the same way.

Each kind stands for one HTTP status, mapped in `core.api.http_status`: the /v1 API answers
`{"error": message}` with it, the OAuth endpoints answer RFC 6749's `{"error": code,
"error_description": message}`, and dashboard pages show the message (a 404 stays a 404).
"""


class HubError(Exception):
    """A refusal with a message for people. `code` is the machine-readable reason where a
    protocol names one (the OAuth error codes of RFC 6749 section 5.2 and RFC 8628); `extra`,
    more fields for the /v1 error body beside "error" (e.g. the findings of a secret scan)."""

    def __init__(self, message: str, *, code: str | None = None, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.extra = extra or {}


class BadRequest(HubError):
    pass


class Unauthorized(HubError):
    pass


class Forbidden(HubError):
    pass


class NotFound(HubError):
    pass


class Conflict(HubError):
    pass


class Gone(HubError):
    pass


class Unprocessable(HubError):
    pass


class LengthRequired(HubError):
    pass


class TooManyRequests(HubError):
    """`retry_after`: the seconds to wait, sent as the Retry-After header of a /v1 answer."""

    def __init__(self, message: str, *, retry_after: int | None = None, **kwargs):
        super().__init__(message, **kwargs)
        self.retry_after = retry_after
