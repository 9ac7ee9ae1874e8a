"""The client's errors: one family, so the command line and the MCP server report them alike.

Every message says what to do next, usually ending with the command to run.
"""

from __future__ import annotations


class LtmError(Exception):
    """A failure with an optional list of details (schema errors with their paths, findings)."""

    def __init__(self, message: str, details: list[str] | None = None):
        super().__init__(message)
        self.details = list(details or [])

    def report(self) -> str:
        return "\n".join([str(self)] + [f"  - {detail}" for detail in self.details])


class UsageError(LtmError):
    """The command line itself is wrong (exit code 2)."""


class ConfigError(LtmError):
    """A config key or value a person typed wrong; the message says what would be right."""


class HubRequestError(LtmError):
    """A call to the hub that did not succeed. `status` is the HTTP status, or None without a
    response; `body` the error's JSON object, for what the hub says besides its message."""

    def __init__(self, message: str, status: int | None = None, body: dict | None = None):
        super().__init__(message)
        self.status = status
        self.body = body or {}


class PacketRejected(LtmError):
    """The packet does not validate; `details` holds every error with its JSON path."""


class RedactionRefused(LtmError):
    """The pre-flight found secrets or machine paths; `findings` says where."""

    def __init__(self, findings: list):
        super().__init__(
            "packet contains content that should not leave this machine; refusing to push "
            "(edit it out, or pass --allow-unredacted to push anyway, not recommended)",
            [str(finding) for finding in findings],
        )
        self.findings = findings


class IdTaken(LtmError):
    """The hub answered 409: another person already has a packet with this id."""

    def __init__(self, host: str, packet_id):
        super().__init__(
            f"packet id {packet_id or '(unknown)'} is already taken on {host} by someone else (a push "
            "never overwrites another person's packet); give the packet a new id and push again "
            "(`ltm example` prints a packet with a fresh id)"
        )
        self.packet_id = packet_id
