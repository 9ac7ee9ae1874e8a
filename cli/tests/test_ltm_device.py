"""Pieces of the device flow that need no hub: the code's format and the live countdown."""

import io

import pytest

from ltm.device import Countdown, format_user_code


@pytest.mark.parametrize("raw,shown", [("abcd2345", "ABCD-2345"), ("ABCD-2345", "ABCD-2345"), ("wxyz", "WXYZ")])
def test_user_code_format(raw, shown):
    assert format_user_code(raw) == shown


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_countdown_redraws_one_line_on_a_terminal():
    now = [0.0]
    stream = Terminal()
    countdown = Countdown(stream, deadline=125, clock=lambda: now[0])
    countdown.show()
    now[0] = 1
    countdown.show()
    countdown.clear()
    text = stream.getvalue()
    assert "\n" not in text
    assert "\rwaiting for approval, code expires in 2:05" in text
    assert "\rwaiting for approval, code expires in 2:04" in text
    assert text.endswith("\r\033[K")


def test_countdown_prints_a_line_a_minute_elsewhere():
    now = [0.0]
    stream = io.StringIO()
    countdown = Countdown(stream, deadline=125, clock=lambda: now[0])
    for second in range(0, 126, 5):
        now[0] = second
        countdown.show()
    assert stream.getvalue().splitlines() == [
        "waiting for approval, code expires in 2:05",
        "waiting for approval, code expires in 1:55",
        "waiting for approval, code expires in 0:55",
    ]
