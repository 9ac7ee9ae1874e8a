"""How results look: summaries, plurals, tables and JSON on stdout, notes on stderr."""

import json

import pytest

from ltm import output
from ltm.protocol.packet import example_packet


@pytest.mark.parametrize("count, expected", [(0, "0 attempts"), (1, "1 attempt"), (2, "2 attempts")])
def test_plural(count, expected):
    assert output.plural(count, "attempt") == expected


def test_shorten_keeps_one_line_and_cuts_with_an_ellipsis():
    assert output.shorten("fix\n  the   build", 70) == "fix the build"
    assert output.shorten("abcdefghij", 5) == "abcd…"


def test_header_ignores_the_case_of_the_name():
    assert output.header({"x-ltm-public-url": "https://hub/p/x"}, "X-LTM-Public-URL") == "https://hub/p/x"
    assert output.header({}, "X-LTM-Public-URL") is None


def test_packet_summary_counts_and_says_how_to_resume():
    packet = example_packet()
    summary = output.packet_summary(packet, {})
    assert summary.startswith(f"{packet['id']}  ltm 0.2  {packet['created_at']}")
    assert f"goal       {packet['goal']}" in summary
    assert "contains   " in summary and "locked)" in summary
    assert "published" not in summary
    assert summary.endswith(f"resume it with `ltm resume {packet['id']}`")


def test_packet_summary_shows_the_public_page():
    headers = {"X-LTM-Public-URL": "https://hub/p/abc", "X-LTM-Published-At": "2026-04-22T09:30:00Z"}
    assert "published  https://hub/p/abc (since 2026-04-22T09:30:00Z)" in output.packet_summary(
        example_packet(), headers
    )


def test_whoami_json_is_the_go_clients_shape():
    text = output.whoami_json({"host": "https://hub.example.com", "token_hash8": "0123abcd"})
    assert json.loads(text) == {"host": "https://hub.example.com", "token_hash8": "0123abcd"}
    assert text.startswith('{\n  "host"')


def test_to_json_keeps_non_ascii_text():
    assert output.to_json({"goal": "café"}) == '{\n  "goal": "café"\n}'


def test_table_pads_each_column_to_its_widest_cell(capsys):
    output.table(["ID", "GOAL"], [("a", "first"), ("longer", "x")])
    assert capsys.readouterr().out == "ID      GOAL\na       first\nlonger  x\n"


def test_note_goes_to_stderr_with_the_prefix(capsys):
    output.note("signed in")
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "ltm: signed in\n")


def test_wants_json_from_the_flag_or_the_config(config_dir, monkeypatch):
    assert output.wants_json(True)
    assert not output.wants_json(False)
    monkeypatch.setenv("LTM_OUTPUT", "json")
    assert output.wants_json(False)
