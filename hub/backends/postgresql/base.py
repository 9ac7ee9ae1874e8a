"""PostgreSQL as Django speaks it, with a bound on every wait for the server.

A server that does not answer (it takes the connection and then says nothing, or the network
drops its packets) would hold a request, and the web worker's thread that answers it, forever:
psycopg waits for an answer without limit, a server that is not running cannot enforce its own
statement_timeout, and the web server (granian) sets no time limit on a request.

- Connecting gives up after OPTIONS["connect_timeout"] seconds (psycopg's, for each address the
  host name resolves to).
- On an open connection, every wait for the server (a statement, a fetch of the next rows, a
  commit) gives up after OPTIONS["answer_timeout"] seconds (None: no limit): the connection is
  closed, since its state is unknown. The settings make it a little longer than the statement
  timeout, which a server that is alive enforces itself and which leaves the connection usable.
- Either raises OperationalError (a 503, core.views.server_error), and this process then leaves
  the database alone for BREAK_SECONDS: a new connection fails at once, so a request that met a
  silent database makes no second attempt, and the requests after it answer at once instead of
  queueing behind a worker that waits. Then the next connection tries again. (A server that
  refuses, or a wrong password, fails at once anyway and leaves nothing to wait out.)
"""

import time

import psycopg
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base
from psycopg import IsolationLevel
from psycopg.errors import (
    ConnectionTimeout,
    _WaitTimeout,  # Connection.wait's timeout; psycopg has no public one (hub/tests/test_library_pins.py)
)

# As the Retry-After of the 503: a client that waits as told finds the database tried again.
BREAK_SECONDS = 5.0
GONE = "the database did not answer; not asking it again for a few seconds"


class Breaker:
    """One per process: every thread's connections read and set it."""

    down_until = 0.0

    @classmethod
    def trip(cls) -> None:
        cls.down_until = time.monotonic() + BREAK_SECONDS

    @classmethod
    def is_open(cls) -> bool:
        return time.monotonic() < cls.down_until


class BoundedConnection(psycopg.Connection):
    answer_timeout: float | None = None

    # psycopg has no public client-side bound on a wait for the server (hub/tests/test_library_pins.py).
    def wait(self, gen, *args, timeout=None, **kwargs):
        if timeout is not None or self.answer_timeout is None:  # psycopg's own timed waits
            return super().wait(gen, *args, timeout=timeout, **kwargs)
        try:
            return super().wait(gen, *args, timeout=self.answer_timeout, **kwargs)
        except _WaitTimeout:
            self.close()
            Breaker.trip()
            raise psycopg.OperationalError(
                f"the database did not answer within {self.answer_timeout:g} seconds"
            ) from None


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self):
        options = self.settings_dict["OPTIONS"]
        if "pool" in options or "isolation_level" in options:
            raise ImproperlyConfigured(
                "hub.backends.postgresql takes neither OPTIONS['pool'] nor OPTIONS['isolation_level']"
            )
        params = super().get_connection_params()
        params.pop("answer_timeout", None)  # ours, not libpq's
        return params

    def get_new_connection(self, conn_params):
        if Breaker.is_open():
            raise psycopg.OperationalError(GONE)
        try:
            connection = BoundedConnection.connect(**conn_params)
        except ConnectionTimeout:
            Breaker.trip()
            raise
        connection.answer_timeout = self.settings_dict["OPTIONS"].get("answer_timeout")
        self.isolation_level = IsolationLevel.READ_COMMITTED  # what Django's backend records without the option
        return connection
