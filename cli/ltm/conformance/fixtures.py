"""The packets checks push: a named fixture, with the mutations a vector applies.

Each name a check uses (`"name": "p"`) gets a fresh id on its first use and keeps it for the rest
of the check, so a check can push, re-push and pull "the same packet" while never touching an id
that somebody else owns. Fresh packets are stamped one second apart from the start of the run, so
the order they are pushed in is also their order by `created_at`.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

from ulid import ULID

from ..protocol.packet import example_packet

# The fields v0.2 added over v0.1, at the top and in the items of decisions and attempts.
_V02_ONLY = {
    "": ("parent_id", "success_criteria", "methods"),
    "decisions": ("consequences",),
    "attempts": ("confidence",),
}


def _v01(full: dict) -> dict:
    packet = {key: value for key, value in full.items() if key not in _V02_ONLY[""]}
    for key in ("decisions", "attempts"):
        packet[key] = [{k: v for k, v in item.items() if k not in _V02_ONLY[key]} for item in packet[key]]
    return {**packet, "ltm_version": "0.1"}


def _minimal(full: dict) -> dict:
    return {key: full[key] for key in ("ltm_version", "id", "created_at", "goal", "next_step")}


def fixtures() -> dict[str, dict]:
    """The fixtures by name: every field of v0.2 (the protocol's example packet), only its
    required ones, and the same two for v0.1."""
    full = example_packet()
    return {"v0.2": full, "v0.2-minimal": _minimal(full), "v0.1": _v01(full), "v0.1-minimal": _minimal(_v01(full))}


class Packets:
    """The named packets of one check, stamped from `clock` (a list holding the next instant, shared
    by the checks of a run)."""

    def __init__(self, clock: list[datetime]):
        self.clock = clock
        self.stamps: dict[str, dict] = {}  # name -> its id and created_at
        self.latest: dict[str, object] = {}  # name -> the packet as last built

    def names(self, name: str) -> dict:
        """The variables of packet `name` (`name.id`, `name.created_at`), minted on first use."""
        if name not in self.stamps:
            moment = self.clock[0]
            self.clock[0] = moment + timedelta(seconds=1)
            self.stamps[name] = {"id": str(ULID()), "created_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}
        return {f"{name}.{key}": value for key, value in self.stamps[name].items()}

    def build(self, spec: dict) -> tuple[object, bytes]:
        """(the packet value, the body to send) for a filled-in `packet` part of a step."""
        packet = {**copy.deepcopy(fixtures()[spec.get("fixture", "v0.2")]), **self.stamps[spec["name"]]}
        for pointer, value in spec.get("set", {}).items():
            packet = set_pointer(packet, pointer, value)
        for pointer in spec.get("remove", []):
            packet = remove_pointer(packet, pointer)
        self.latest[spec["name"]] = packet
        body = json.dumps(packet, ensure_ascii=False).encode("utf-8")
        if "pad_to" in spec:
            body = pad(body, spec["pad_to"])
        return packet, body


def pad(body: bytes, size: int) -> bytes:
    """`body` made exactly `size` bytes long with trailing JSON whitespace."""
    if len(body) > size:
        raise ValueError(f"the packet is already {len(body)} bytes, more than pad_to {size}")
    return body + b" " * (size - len(body))


def _steps(pointer: str) -> list:
    """RFC 6901: "/decisions/0/why" -> ["decisions", "0", "why"]; "" is the whole value."""
    if pointer == "":
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def read_pointer(value, pointer: str):
    """The part of `value` at the JSON pointer; KeyError when there is none."""
    return _walk(value, _steps(pointer), pointer)


def _walk(value, steps: list, pointer: str):
    for step in steps:
        if isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        elif isinstance(value, dict) and step in value:
            value = value[step]
        else:
            raise KeyError(pointer)
    return value


def set_pointer(document, pointer: str, value):
    """`document` with the part at `pointer` set to `value` ("-" appends to a list)."""
    steps = _steps(pointer)
    if not steps:
        return value
    parent, last = _walk(document, steps[:-1], pointer), steps[-1]
    if isinstance(parent, list):
        if last == "-":
            parent.append(value)
        else:
            parent[int(last)] = value
    else:
        parent[last] = value
    return document


def remove_pointer(document, pointer: str):
    steps = _steps(pointer)
    parent = _walk(document, steps[:-1], pointer)
    del parent[int(steps[-1]) if isinstance(parent, list) else steps[-1]]
    return document


def run_start() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
