"""Instants as the wire carries them."""


def rfc3339(moment) -> str:
    """A timestamp as the wire carries it: ISO 8601, UTC written `Z`."""
    return moment.isoformat().replace("+00:00", "Z")
