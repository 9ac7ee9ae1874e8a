"""Shares with a person on another hub (`username@host`): sharing declares what it asks of them
here, and federation, above packets, registers the answers as the hub starts
(federation.apps), so that imports still point down. Without federation, no address is remote."""

from dataclasses import dataclass
from typing import Any, Protocol


class RemoteSharing(Protocol):
    def is_address(self, to: str) -> bool:
        """Whether `to` names a person on another hub."""

    def share(self, *, actor, packet, address: str, note: str) -> Any:
        """Share `packet` with `address` (inside the share's transaction); the remote share."""

    def shares_sent(self, *, viewer, limit: int) -> list:
        """The viewer's remote shares, newest first, each with its `packet` (held out as for them)."""

    def withdraw(self, *, actor, share_id: str) -> bool:
        """Withdraw the actor's remote share `share_id`; False when they have none of that id."""

    def origin(self, *, packet_id: str) -> dict | None:
        """Where a packet received from another hub came from ({"hub", "verified"}), else None."""


@dataclass
class _Registry:
    remote: RemoteSharing | None = None


registry = _Registry()


def register(remote: RemoteSharing) -> None:
    registry.remote = remote


def is_remote(to) -> bool:
    return registry.remote is not None and isinstance(to, str) and registry.remote.is_address(to)


def origin(packet_id: str) -> dict | None:
    """The provenance of a packet another hub shared with this one (its page's badge), else None."""
    return registry.remote.origin(packet_id=packet_id) if registry.remote is not None else None
