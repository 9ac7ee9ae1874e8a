"""The shipped vectors: one JSON file per group of checks, the capabilities the checks may need
and how to detect them (capabilities.json), and the schema of both (format.schema.json)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

FORMAT_SCHEMA = "format.schema.json"
CAPABILITIES = "capabilities.json"
# What a check quotes when its spec names no `source`: this repository's protocol reference (the
# protocol's README), written from upstream's SPEC.md but not SPEC.md itself, so never called so.
PROTOCOL_REFERENCE = "protocol reference"


def source(spec: dict) -> str:
    """The name of the document a check's `spec` quotes."""
    return spec.get("source", PROTOCOL_REFERENCE)


def _folder():
    return resources.files("ltm.conformance").joinpath("vectors")


def _read(name: str) -> dict:
    return json.loads(_folder().joinpath(name).read_text("utf-8"))


def file_names() -> list[str]:
    """Every vector file (groups and capabilities), without the format's schema."""
    return sorted(
        entry.name for entry in _folder().iterdir() if entry.name.endswith(".json") and entry.name != FORMAT_SCHEMA
    )


@cache
def groups() -> tuple[dict, ...]:
    """The groups in the order they run: their files' names start with their rank (01-health.json)."""
    return tuple(_read(name) for name in file_names() if name != CAPABILITIES)


@cache
def capabilities() -> dict:
    return _read(CAPABILITIES)["capabilities"]


def format_schema() -> dict:
    return _read(FORMAT_SCHEMA)


def read(name: str) -> dict:
    """One vector file, by its name."""
    return _read(name)


def known_deviations(server: str) -> dict[tuple[str, str], str]:
    """(group, check name) -> why `server` (a file of known_deviations/: "hub", "reference")
    fails that check on purpose or by a bug of its own."""
    text = resources.files("ltm.conformance").joinpath("known_deviations", f"{server}.json").read_text("utf-8")
    return {(item["group"], item["check"]): item["reason"] for item in json.loads(text)["deviations"]}
