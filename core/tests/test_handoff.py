"""core.handoff: what a process hands to its thread while the thread waits comes along together."""

import time

from core.handoff import Handoff


def test_what_is_handed_meanwhile_is_taken_together_by_the_thread_the_first_add_started():
    taken = []
    handoff = Handoff("test-handoff", lambda: taken.append(handoff.take(after=0.2)))
    handoff.add("a")
    handoff.add("b")
    handoff.add("a")
    deadline = time.monotonic() + 5
    while not taken and time.monotonic() < deadline:
        time.sleep(0.01)
    assert taken == [{"a", "b"}]
    assert handoff.items == set()
