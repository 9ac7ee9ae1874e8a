"""`ltm resume` against the real hub: the block by id, to stdout or the clipboard, and the picker
that offers the person's packets when no id is given."""

import io
import sys

import ltm.clipboard
from cli.testing.command_line import out_of, pipe_stdin, run
from ltm.protocol.resume import render_resume


def test_resume_prints_the_block_with_no_copy(two_packets, capsys):
    first, second = two_packets
    out = out_of(capsys, ["resume", second["id"], "--no-copy"])
    assert out == render_resume(second)
    assert out.startswith("# Resume from ltm packet")
    assert f"- Continues: {first['id']}" in out


def test_resume_with_an_id_prints_even_on_a_terminal(two_packets, monkeypatch, capsys):
    """As the Go client: with an id the block goes to stdout; only --copy (or the picker) uses
    the clipboard."""
    copied = []
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: copied.append(text) or "xclip")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert out_of(capsys, ["resume", two_packets[1]["id"]]).startswith("# Resume from ltm packet")
    assert copied == []


def test_resume_copies_to_the_clipboard(two_packets, monkeypatch, capsys):
    copied = []
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: copied.append(text) or "xclip")
    captured = run(capsys, ["resume", two_packets[1]["id"], "--copy"])
    assert captured.out == ""
    assert "copied the resume block" in captured.err
    assert copied == [render_resume(two_packets[1])]


def test_resume_without_clipboard_prints_and_says_so(two_packets, monkeypatch, capsys):
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: None)
    captured = run(capsys, ["resume", two_packets[1]["id"], "--copy"])
    assert "no clipboard tool found" in captured.err
    assert captured.out.startswith("# Resume from ltm packet")


def test_resume_picker_reads_the_choice(two_packets, hub, monkeypatch, capsys):
    monkeypatch.setattr(ltm.clipboard, "copy", lambda text: None)
    pipe_stdin(monkeypatch, "2\n")
    captured = run(capsys, ["resume"])
    assert hub.last("GET", "/v1/packets?").path == "/v1/packets?limit=50"
    assert hub.last("GET", "/v1/shares").path == "/v1/shares?direction=in&limit=50"  # unread shares first
    assert "  2  2026-04-22T00:00  First goal" in captured.err
    assert captured.out == render_resume(two_packets[0])


def test_resume_picker_at_end_of_input_is_no_choice(two_packets, monkeypatch, capsys):
    pipe_stdin(monkeypatch, "")
    err = run(capsys, ["resume"], code=1).err
    assert "no packet chosen (end of input)" in err and "`ltm resume <id>`" in err
    assert "cancelled" not in err


def test_resume_picker_empty_answer_is_no_choice(two_packets, monkeypatch, capsys):
    pipe_stdin(monkeypatch, "\n")
    assert "no packet chosen" in run(capsys, ["resume"], code=1).err


def test_resume_picker_with_no_packets_anywhere_says_to_push_one(hub, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    assert run(capsys, ["resume"], code=1).err == (
        "ltm: no personal packets to resume, and nothing unread shared with you; push one with `ltm push <file>`\n"
    )
