"""SQL round trips per call: each call is run once in this process through the hub's WSGI
application (as in_process.py: the production settings, the bench's database, the signals the
server's workers get) and what reaches the database is counted where it leaves the process.

PostgreSQL: libpq's protocol trace of the connection; a round trip is a message after which the
client waits for the server: a simple Query (BEGIN, COMMIT, Django's `SELECT 1` health check) or
the Sync that ends an extended-protocol Parse/Bind/Execute. SQLite has no wire: the statements the
library runs (BEGIN and COMMIT included), from sqlite3's trace callback.

Each call is made a few times uncounted first, so that what is counted is the steady state the
load sees: the connection open, the token's last-used time written at most once a minute, and on
PostgreSQL the statements prepared (psycopg prepares one on its fifth run, which costs that run
one more round trip, once per connection).
"""

import os
import tempfile
from contextlib import contextmanager

from django.db import connection
from in_process import caller

WARM_UP_CALLS = 6  # past psycopg's prepare_threshold (hub/settings/database.py)


@contextmanager
def _postgresql_counter():
    from psycopg.pq import Trace

    pgconn = connection.connection.pgconn
    counted = []
    with tempfile.TemporaryFile() as trace:
        fd = os.dup(trace.fileno())  # libpq writes through its own stream on this descriptor
        pgconn.trace(fd)
        pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield counted
        finally:
            pgconn.untrace()
            os.close(fd)
        if connection.connection.pgconn is not pgconn:
            raise SystemExit("the database connection was replaced during a counted call")
        trace.seek(0)
        sent = [line.split(b"\t") for line in trace.read().splitlines() if line.startswith(b"F\t")]
        counted.append(sum(1 for fields in sent if fields[2] in (b"Query", b"Sync")))


@contextmanager
def _sqlite_counter():
    statements = []
    connection.connection.set_trace_callback(statements.append)
    counted = []
    try:
        yield counted
    finally:
        connection.connection.set_trace_callback(None)
    counted.append(len(statements))


def count_round_trips(calls: dict) -> dict[str, int]:
    """{name: round trips} for `calls`, {name: a function returning (method, path, body, headers)}."""
    prepare, answer = caller()

    def call(make_request):
        answer(prepare(make_request))

    counter = _postgresql_counter if connection.vendor == "postgresql" else _sqlite_counter
    counts = {}
    for name, make_request in calls.items():
        for _ in range(WARM_UP_CALLS):
            call(make_request)
        connection.ensure_connection()
        with counter() as counted:
            call(make_request)
        counts[name] = counted[0]
    return counts
