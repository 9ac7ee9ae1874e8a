"""Errors that services raise and every surface (API, dashboard, commands) shows the same way.

The API turns them into `{"error": message}` with `status`; dashboard views show the message.
"""


class HubError(Exception):
    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BadRequest(HubError):
    status = 400


class Forbidden(HubError):
    status = 403


class NotFound(HubError):
    status = 404


class Conflict(HubError):
    status = 409


class Gone(HubError):
    status = 410


class LengthRequired(HubError):
    status = 411
