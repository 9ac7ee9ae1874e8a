"""The packet core shared by the hub and the CLI: parsing, validation and canonical encoding.

One implementation for both sides, so the hub can never accept a packet the client would
reject (or the other way round).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from functools import cache
from importlib import resources

import jsonschema
import jsonschema_rs
import orjson
from ulid import ULID

from . import strict_json

MAX_PACKET_BYTES = 32 * 1024
SUPPORTED_VERSIONS = ("0.1", "0.2")
LATEST_VERSION = "0.2"

# RFC 3339 date-time with a mandatory zone; JSON Schema's "format" is not enforced by default.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_MESSAGE_CAP = 160


class PacketError(ValueError):
    """A packet that cannot be accepted. `errors` lists every problem, `str()` the first ones."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        shown = "; ".join(self.errors[:3])
        more = len(self.errors) - 3
        super().__init__(shown + (f" (and {more} more)" if more > 0 else ""))


@cache
def schema(version: str) -> dict:
    """The JSON Schema of one supported ltm_version."""
    text = resources.files("ltm.protocol.schema").joinpath(f"core-memory.v{version}.json").read_text("utf-8")
    return json.loads(text)


@cache
def _validator(version: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(version))


@cache
def _quick_validator(version: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(schema(version))


def _surely_valid(version: str, packet: dict) -> bool:
    """jsonschema-rs's verdict, far cheaper than jsonschema's on the usual valid packet (the
    figures are in bench/README.md). Only a fast path: whatever it refuses, jsonschema checks
    again and words, so the answer is always jsonschema's (the two differ at the edges: Rust's `$`
    refuses the trailing newline that Python's lets through; Rust cannot hold a lone surrogate)."""
    try:
        return _quick_validator(version).is_valid(packet)
    except ValueError:
        return False


def example_packet() -> dict:
    """The protocol's example v0.2 packet (`ltm example` prints it fresh, see fresh_example)."""
    text = resources.files("ltm.protocol.schema").joinpath("example.v0.2.json").read_text("utf-8")
    return json.loads(text)


EXAMPLE_AUTHOR = "example"


def fresh_example(author: str | None = None) -> dict:
    """The example packet with a new `id` and `created_at` = now, so that anyone can push it (the
    protocol's fixed id belongs to whoever pushed it first on a hub), and `author` as its human
    author: the protocol's example credits its own writer, whom a newcomer's first published page
    would name."""
    packet = {**example_packet(), "id": str(ULID()), "created_at": utc_now()}
    packet["provenance"] = {**packet["provenance"], "author_human": author or EXAMPLE_AUTHOR}
    return packet


def with_defaults(packet: dict) -> dict:
    """The packet with `id` and `created_at` filled in when left out (agents are poor at minting
    ULIDs and reading clocks)."""
    return {"id": str(ULID()), "created_at": utc_now(), **packet}


def parse_packet(raw: bytes | str) -> dict:
    """Check size, encoding and JSON syntax, then validate. Returns the packet as a dict."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > MAX_PACKET_BYTES:
        raise PacketError([f"packet is {len(data)} bytes; the maximum is {MAX_PACKET_BYTES} bytes (32 KiB)"])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PacketError([f"packet is not valid UTF-8 (byte {exc.start})"]) from None
    if not text.strip():
        raise PacketError(["empty body: expected a packet as a JSON object"])
    try:
        packet = strict_json.loads(text)
    except json.JSONDecodeError as exc:
        raise PacketError([f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"]) from None
    except strict_json.JSONLimitError as exc:
        raise PacketError([f"invalid JSON: {exc}"]) from None
    validate_packet(packet)
    return packet


def check_packet(packet: dict) -> dict:
    """A packet already decoded (a tool's argument) held to parse_packet's rules: the size cap on
    its JSON, then validation. The packet."""
    try:
        size = len(json.dumps(packet, ensure_ascii=False).encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate, which no store can hold
        raise PacketError(["packet holds a string that is not valid Unicode (a lone surrogate)"]) from None
    if size > MAX_PACKET_BYTES:
        raise PacketError([f"packet is {size} bytes; the maximum is {MAX_PACKET_BYTES} bytes (32 KiB)"])
    validate_packet(packet)
    return packet


def packet_errors(packet) -> list[str]:
    """Every problem with a decoded packet, each naming its JSON path; empty when valid."""
    if not isinstance(packet, dict):
        return [f"a packet must be a JSON object, not {_json_type(packet)}"]
    if "ltm_version" not in packet:
        return ["missing required field 'ltm_version'"]
    version = packet["ltm_version"]
    if not isinstance(version, str):
        # A bare 0.2 would otherwise read as "unsupported 0.2 (supported: 0.1, 0.2)".
        shown = f" ({json.dumps(version)})" if isinstance(version, (int, float)) else ""
        return [f'ltm_version must be a string such as "{LATEST_VERSION}", not {_json_type(version)}{shown}']
    if version not in SUPPORTED_VERSIONS:
        shown = json.dumps(version, ensure_ascii=False)
        return [f"unsupported ltm_version {shown} (supported: {', '.join(SUPPORTED_VERSIONS)})"]
    messages = [] if _surely_valid(version, packet) else _schema_errors(version, packet)
    created_at = packet.get("created_at")
    if isinstance(created_at, str) and parse_timestamp(created_at) is None:
        messages.append(
            f"$.created_at: {_short(repr(created_at))} is not an RFC 3339 date-time with a zone, in years 1 to 9999 UTC"
        )
    return messages


def _schema_errors(version: str, packet: dict) -> list[str]:
    errors = sorted(_validator(version).iter_errors(packet), key=lambda e: (list(e.absolute_path), e.message))
    return [f"{e.json_path}: {_describe(e)}" for e in errors]


def validate_packet(packet) -> None:
    """Raise PacketError unless the decoded packet is valid for its ltm_version."""
    errors = packet_errors(packet)
    if errors:
        raise PacketError(errors)


def parse_timestamp(value: str) -> datetime | None:
    """An RFC 3339 date-time (with zone) as an aware datetime, or None when it is not one."""
    if not _RFC3339.match(value):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
        moment.astimezone(UTC)  # e.g. 9999-12-31T23:59:59-01:00 is past year 9999 in UTC
    except (ValueError, OverflowError):
        return None
    return moment


def utc_now() -> str:
    """The current time as RFC 3339 in UTC, to the second: 2026-04-22T09:30:00Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_CANONICAL = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def canonical_json(packet: dict) -> str:
    """The stable encoding the hub stores and serves: sorted keys, 2-space indent, UTF-8.

    The bytes of `json.dumps(packet, sort_keys=True, indent=2, ensure_ascii=False)`: orjson writes
    them faster (bench/README.md) for what a packet holds (strings, booleans, arrays, objects; the
    standard library's encoder cannot indent in C). What orjson refuses (an integer past 64 bits, a
    lone surrogate) goes to the standard library."""
    try:
        return orjson.dumps(packet, option=_CANONICAL).decode() + "\n"
    except orjson.JSONEncodeError:
        return json.dumps(packet, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _describe(error) -> str:
    """jsonschema's message, without echoing a huge value back."""
    value, limit = error.instance, error.validator_value
    if error.validator == "maxLength":
        return f"is too long ({_characters(len(value))}; the maximum is {limit})"
    if error.validator == "minLength":
        return f"is too short ({_characters(len(value))}; the minimum is {limit})"
    if error.validator == "maxItems":
        return f"has too many items ({len(value)}; the maximum is {limit})"
    return _short(error.message)


def _characters(count: int) -> str:
    return "1 character" if count == 1 else f"{count} characters"


def _short(message: str) -> str:
    return message if len(message) <= _MESSAGE_CAP else message[: _MESSAGE_CAP - 1] + "…"


def _json_type(value) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
