"""Ids on the wire are strings; new rows get a ULID (sortable by creation, 128 bits)."""

from ulid import ULID


def new_id() -> str:
    return str(ULID())
