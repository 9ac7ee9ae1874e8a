"""The protocol's JSON reader refuses what would break whoever stores or re-encodes a value."""

import json

import pytest

from ltm.protocol import strict_json
from ltm.protocol.packet import PacketError, example_packet, parse_packet


def test_ordinary_json_reads_as_json_does():
    text = json.dumps(example_packet())
    assert strict_json.loads(text) == json.loads(text)


def test_nesting_up_to_the_limit_reads_and_one_more_level_is_refused():
    depth = strict_json.MAX_DEPTH
    assert strict_json.loads("[" * depth + "]" * depth) is not None
    with pytest.raises(strict_json.JSONLimitError, match="nested more than 32 levels deep"):
        strict_json.loads("[" * (depth + 1) + "]" * (depth + 1))


def test_nesting_past_the_interpreters_stack_is_refused_not_crashed():
    with pytest.raises(strict_json.JSONLimitError, match="nested more than"):
        strict_json.loads('{"a":' * 100_000 + "1" + "}" * 100_000)


@pytest.mark.parametrize("literal", ["9" * 101, "-" + "9" * 101, "1." + "0" * 100, "9" * 5000])
def test_number_literals_past_100_characters_are_refused(literal):
    with pytest.raises(strict_json.JSONLimitError, match="more than 100 digits"):
        strict_json.loads(f"[{literal}]")


def test_a_hundred_digits_still_read():
    assert strict_json.loads("9" * 100) == int("9" * 100)


@pytest.mark.parametrize(
    "text",
    ['"\\ud800"', '{"\\udc00": 1}', '["ok", "a\\udbffb"]', '"\\uDFFF"', '"\ud800"', '{"a": "\udc00"}'],
    ids=["escaped", "escaped-in-a-key", "escaped-inside-text", "escaped-in-capitals", "raw", "raw-in-a-value"],
)
def test_lone_surrogates_are_refused_in_values_and_keys(text):
    with pytest.raises(strict_json.JSONLimitError, match="lone UTF-16 surrogate"):
        strict_json.loads(text)


def test_a_surrogate_pair_is_one_character():
    assert strict_json.loads('"\\ud83d\\ude80"') == "\U0001f680"


def test_the_cli_reports_a_deep_packet_as_a_packet_error():
    with pytest.raises(PacketError, match="invalid JSON: nested more than 32 levels deep"):
        parse_packet('{"goal": ' + "[" * 2000 + "]" * 2000 + "}")


def test_loose_reading_keeps_only_the_nesting_limit():
    assert strict_json.loads_loosely('["\\ud800", 1e999]') == ["\ud800", float("inf")]
    depth = strict_json.MAX_DEPTH
    assert strict_json.loads_loosely("[" * depth + "]" * depth) is not None
    for text in ("[" * (depth + 1) + "]" * (depth + 1), "[" * 100_000):
        with pytest.raises(strict_json.JSONLimitError, match="nested more than 32 levels deep"):
            strict_json.loads_loosely(text)
