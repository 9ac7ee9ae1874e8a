"""Helpers of the tests that run the command line in process: a run and what it printed, packet
files to push, and a stdin to answer a prompt."""

import io
import json

from ltm.main import main
from ltm.protocol.packet import example_packet

PACKET_ID = example_packet()["id"]  # the protocol's example: whoever pushes it first holds the id


def run(capsys, argv, code=0):
    """Run `ltm argv`, check its exit code, and return what it printed (out, err)."""
    assert main(argv) == code, capsys.readouterr().err
    return capsys.readouterr()


def out_of(capsys, argv, code=0):
    """What `ltm argv` printed on stdout."""
    return run(capsys, argv, code).out


def packet_with(**changes):
    """The protocol's example packet with `changes`."""
    packet = example_packet()
    packet.update(changes)
    return packet


def numbered(number, **changes):
    """The example packet number `number` of a series: its own id, a day of April 2026 and goal."""
    series = {"id": f"01THREADPACKET{number:012d}", "created_at": f"2026-04-{number:02d}T10:00:00Z"}
    return packet_with(**{**series, "goal": f"goal {number}", **changes})


def write_packet(tmp_path, packet, name="packet.json"):
    """`packet` as a JSON file in `tmp_path`; its path."""
    path = tmp_path / name
    path.write_text(json.dumps(packet))
    return str(path)


def write_example(tmp_path, **changes):
    """The example packet with `changes`, in a file named after its id; its path."""
    packet = packet_with(**changes)
    return write_packet(tmp_path, packet, f"{packet['id']}.json")


def pipe_stdin(monkeypatch, text):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
