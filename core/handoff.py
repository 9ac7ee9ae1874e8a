"""Work a process hands to one background thread of its own.

The web server forks its workers after loading the hub, and a thread started before the fork does
not run in the child: the thread starts on the first hand-off in each process. What is handed
while the thread is busy gathers in a set, taken whole at its next turn."""

import os
import threading
import time


class Handoff:
    def __init__(self, name: str, run):
        """`run` is the thread's loop, which takes what was handed with take()."""
        self.name, self.run = name, run
        self.items = set()
        self.changed = threading.Condition()
        self.started_in = None  # the process whose thread this is: a forked child starts its own

    def add(self, item) -> None:
        with self.changed:
            if self.started_in != os.getpid():
                threading.Thread(target=self.run, name=self.name, daemon=True).start()
                self.started_in = os.getpid()
                self.items = set()
            self.items.add(item)
            self.changed.notify()

    def take(self, *, after: float) -> set:
        """Wait until something is handed, then `after` seconds more, so that what is handed
        meanwhile comes along, and take it all."""
        with self.changed:
            self.changed.wait_for(lambda: self.items)
        time.sleep(after)
        with self.changed:
            items, self.items = self.items, set()
        return items
