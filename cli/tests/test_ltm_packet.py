"""Validation of packets (the core the hub shares): versions, limits, encoding, timestamps."""

import json

import pytest

from ltm.protocol.packet import (
    MAX_PACKET_BYTES,
    PacketError,
    canonical_json,
    example_packet,
    packet_errors,
    parse_packet,
)


def v01_packet():
    return {
        "ltm_version": "0.1",
        "id": "01HV0000000000000000000001",
        "created_at": "2026-04-18T22:41:03Z",
        "goal": "Fix the flaky login test",
        "decisions": [{"what": "Use a fake clock", "why": "Real time races", "locked": True}],
        "attempts": [{"tried": "retry three times", "outcome": "failed", "learned": "hides the race"}],
        "next_step": "Inject the clock into LoginService",
    }


def errors_of(packet):
    with pytest.raises(PacketError) as caught:
        parse_packet(json.dumps(packet))
    return caught.value.errors


def test_v01_packet_is_valid():
    assert parse_packet(json.dumps(v01_packet()))["goal"] == "Fix the flaky login test"


def test_v02_example_is_valid_and_round_trips_canonically():
    packet = example_packet()
    assert parse_packet(canonical_json(packet)) == packet
    assert packet_errors(packet) == []


# Characters whose encoding differs between JSON writers: every control and Latin-1 character,
# the line and paragraph separators, a BOM, the last BMP and Unicode code points, an emoji, a
# quote, a backslash and a closing script tag.
AWKWARD_TEXTS = [chr(c) for c in range(0x100)] + [
    "\u2028",
    "\u2029",
    "\ufeff",
    "\uffff",
    "\U0010ffff",
    "\U0001f600",
    '"',
    "\\",
    "</script>",
]


def test_the_canonical_encoding_is_the_standard_librarys():
    """Stored bodies are the bytes json.dumps(sort_keys, indent=2, ensure_ascii=False) wrote
    before canonical_json went through orjson; a re-pushed packet must come out the same."""
    packet = example_packet()
    packet["goal"] = "".join(AWKWARD_TEXTS)
    packet["constraints"] = AWKWARD_TEXTS
    packet["tags"] = []
    packet["decisions"].append({"what": "é ünïcode ключ 🙂", "why": "", "locked": False})
    packet["project"] = {"name": "x", **{f"k{text}": text for text in AWKWARD_TEXTS}}  # keys sort by code point
    nested = {"b": {}, "a": [[], {}, [True, False, None]], "é": "", "z": {"y": [{"x": ""}]}}

    for value in [packet, example_packet(), nested, {}]:
        assert canonical_json(value) == json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_what_orjson_refuses_is_encoded_as_before():
    for value in [{"n": 2**70}, {"s": "\ud800 lone surrogate"}]:
        assert canonical_json(value) == json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_v02_fields_are_unknown_to_v01():
    packet = v01_packet()
    packet["success_criteria"] = ["tests pass"]
    errors = errors_of(packet)
    assert len(errors) == 1 and "success_criteria" in errors[0]


def test_missing_ltm_version():
    packet = v01_packet()
    del packet["ltm_version"]
    assert errors_of(packet) == ["missing required field 'ltm_version'"]


def test_unsupported_version_names_the_supported_ones():
    packet = v01_packet()
    packet["ltm_version"] = "9.9"
    assert errors_of(packet) == ['unsupported ltm_version "9.9" (supported: 0.1, 0.2)']


@pytest.mark.parametrize(
    "value,shown",
    [
        (0.2, "a number (0.2)"),
        (2, "a number (2)"),
        (True, "a boolean (true)"),
        (None, "null"),
        (["0.2"], "an array"),
        ({"v": "0.2"}, "an object"),
    ],
)
def test_ltm_version_that_is_not_a_string_says_so(value, shown):
    packet = example_packet()
    packet["ltm_version"] = value
    assert errors_of(packet) == [f'ltm_version must be a string such as "0.2", not {shown}']


def test_length_errors_count_in_the_singular_too():
    packet = example_packet()
    packet["id"] = "x"
    assert errors_of(packet) == ["$.id: is too short (1 character; the minimum is 10)"]


def test_too_long_field_names_its_path():
    packet = example_packet()
    packet["decisions"][1]["why"] = "x" * 1025
    [error] = errors_of(packet)
    assert error.startswith("$.decisions[1].why:")


def test_unknown_field_is_rejected():
    packet = example_packet()
    packet["scope"] = "team"
    [error] = errors_of(packet)
    assert "scope" in error


def test_every_error_is_reported_with_its_path():
    packet = example_packet()
    del packet["goal"]
    packet["attempts"][0]["outcome"] = "maybe"
    packet["tags"].append("Not A Tag")
    errors = packet_errors(packet)
    assert len(errors) == 3
    assert any(e.startswith("$.attempts[0].outcome:") for e in errors)
    assert any(e.startswith("$.tags[4]:") for e in errors)
    assert any("'goal' is a required property" in e for e in errors)


def test_oversize_body_is_rejected_before_parsing():
    body = b"{" + b" " * MAX_PACKET_BYTES + b"}"
    with pytest.raises(PacketError) as caught:
        parse_packet(body)
    assert "32768" in str(caught.value)


def test_non_utf8_is_rejected():
    with pytest.raises(PacketError) as caught:
        parse_packet(b'{"goal": "\xff"}')
    assert "UTF-8" in str(caught.value)


@pytest.mark.parametrize("value", ["yesterday", "2026-04-18", "2026-04-18T22:41:03", "2026-02-30T10:00:00Z"])
def test_bad_created_at_is_rejected(value):
    packet = example_packet()
    packet["created_at"] = value
    [error] = errors_of(packet)
    assert error.startswith("$.created_at:")


def test_created_at_with_offset_is_accepted():
    packet = example_packet()
    packet["created_at"] = "2026-04-18T22:41:03.5+02:00"
    assert packet_errors(packet) == []


# The fast verdict (jsonschema-rs) against jsonschema's, on variants of a valid packet of each
# version: each value replaced by each of these, each array made long, each top-level key removed,
# an unknown key added to the packet and to each of its objects.
ODD_VALUES = [
    None,
    True,
    0,
    1.5,
    -1,
    10**40,
    "",
    "x",
    "A\n",
    "abc\n",
    "UPPER",
    "a" * 5000,
    "\ud800",
    "2026-04-22T00:00:00Z",
    [],
    ["x"],
    [{}],
    {},
    {"what": 1},
]


def mutations(value, path=()):
    """(path, value to put there) pairs, for `_replaced`."""
    yield from ((path, odd) for odd in ODD_VALUES)
    if isinstance(value, dict):
        for key, child in value.items():
            yield from (((key, *inner), new) for inner, new in mutations(child))
    if isinstance(value, list):
        yield path, value * 60
        for index, child in enumerate(value):
            yield from (((index, *inner), new) for inner, new in mutations(child))


def _replaced(packet, path, new):
    copy = json.loads(json.dumps(packet))
    if not path:
        return new
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = new
    return copy


def _without_and_with_extra(packet):
    for key in packet:
        yield {k: v for k, v in packet.items() if k != key}
    yield {**packet, "unknown": 1}
    for key, value in packet.items():
        if isinstance(value, dict):
            yield {**packet, key: {**value, "unknown": 1}}


@pytest.mark.parametrize("packet", [v01_packet(), example_packet()], ids=["v0.1", "v0.2"])
def test_the_fast_verdict_never_changes_what_jsonschema_says(packet):
    from ltm.protocol import packet as core

    version = packet["ltm_version"]
    variants = [_replaced(packet, path, new) for path, new in mutations(packet) if path and path[0] != "ltm_version"]
    variants += list(_without_and_with_extra(packet))
    passed_quickly = 0
    for variant in variants:
        if core._surely_valid(version, variant):
            passed_quickly += 1
            assert core._schema_errors(version, variant) == [], variant
    assert core._surely_valid(version, packet)
    assert len(variants) > 250 and 0 < passed_quickly < len(variants) / 2, (len(variants), passed_quickly)
