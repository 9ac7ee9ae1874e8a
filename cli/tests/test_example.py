"""`ltm example` (a valid packet with a fresh id and time, credited to the person) and `ltm
platform` (the dashboard)."""

import json
import re
import socket
from datetime import UTC, datetime

import pytest

from cli.testing.command_line import PACKET_ID, out_of, run
from ltm.protocol.packet import example_packet, packet_errors, parse_timestamp


def test_example_prints_a_valid_packet_with_a_fresh_id_and_time(config_dir, capsys):
    before = datetime.now(UTC).replace(microsecond=0)
    first = json.loads(out_of(capsys, ["example"]))
    second = json.loads(out_of(capsys, ["example"]))
    assert packet_errors(first) == []
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", first["id"])
    assert len({first["id"], second["id"], PACKET_ID}) == 3
    assert first["created_at"].endswith("Z")
    assert before <= parse_timestamp(first["created_at"]) <= datetime.now(UTC)
    protocol = example_packet()
    assert protocol["id"] == PACKET_ID  # the protocol's example itself is unchanged
    assert {k: v for k, v in first.items() if k not in ("id", "created_at", "provenance")} == {
        k: v for k, v in protocol.items() if k not in ("id", "created_at", "provenance")
    }
    assert list(first) == list(protocol)  # same field order
    # Not signed in: credited to nobody, not to the protocol example's own writer.
    assert first["provenance"] == {**protocol["provenance"], "author_human": "example"}


def test_example_is_by_the_signed_in_person(hub, capsys):
    out_of(capsys, ["account", "set-name", "Alice Liddell"])
    assert json.loads(out_of(capsys, ["example"]))["provenance"]["author_human"] == "Alice Liddell"
    assert hub.last("GET", "/v1/me")


def test_example_is_by_the_configured_user_without_asking_the_hub(hub, monkeypatch, capsys):
    monkeypatch.setenv("LTM_USER", "ada")
    assert json.loads(out_of(capsys, ["example"]))["provenance"]["author_human"] == "ada"
    assert hub.sent == []


def test_example_of_an_unreachable_hub_is_by_example(config_dir, monkeypatch, capsys):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("LTM_HUB_URL", f"http://127.0.0.1:{port}")
    config_dir.mkdir(mode=0o700)
    (config_dir / "credentials").write_text("tok-alice\n")
    assert json.loads(out_of(capsys, ["example"]))["provenance"]["author_human"] == "example"


def test_what_example_prints_can_be_pushed_by_everyone(hub, tmp_path, capsys):
    for username in ("alice", "bob"):
        hub.as_user(username)
        path = tmp_path / f"{username}.json"
        path.write_text(out_of(capsys, ["example"]))
        assert out_of(capsys, ["push", str(path)]) == json.loads(path.read_text())["id"] + "\n"
        assert [p["id"] for p in json.loads(out_of(capsys, ["ls", "--json"]))["packets"]] == [
            json.loads(path.read_text())["id"]
        ]


@pytest.mark.parametrize("verb", ["platform", "dashboard"])
def test_platform_opens_the_dashboard(config_dir, monkeypatch, capsys, verb):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    monkeypatch.setenv("LTM_HUB_URL", "https://hub.example.com/")
    assert run(capsys, [verb]).out == "https://hub.example.com/\n"
    assert opened == ["https://hub.example.com/"]
