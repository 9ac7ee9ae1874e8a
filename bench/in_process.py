"""What each call costs the hub itself, away from the machine's scheduling: the call is run in
this process through the hub's WSGI application (hub/wsgi.py: Django's handler; the production
settings, the bench's database, the signals the server's workers get), many times over, and the
CPU time this process spent is read (and on PostgreSQL also the CPU time of the connection's
backend, from /proc/<pid>/stat).

Under wrk the CPU per call also holds what the server, wrk and the other processes on the same
cores cost each other. Here the calls run one at a time, in batches, and each call's cheapest
batch is kept. A busy spell of a shared machine still raises every figure of a pass; the ratio
of each call to healthz, measured in the same pass, moves much less: that is the figure to
compare across runs and machines.

roundtrips.py runs its calls with the same `caller()`.
"""

import os
import time
from pathlib import Path

from django.db import connection
from django.test import RequestFactory

from hub.wsgi import build_application

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Uncounted calls first: the connection opens, the token's last use is written (once a minute at
# most) and PostgreSQL's statements get prepared (psycopg prepares one on its fifth run).
WARM_UP_CALLS = 20


def caller():
    """(prepare, answer): prepare(make_request) builds the WSGI environ of one call, given a
    function returning (method, path, body, headers); answer(environ) runs it through the hub's WSGI
    application, as the web server does. Any answer but a 2xx stops the bench."""
    app = build_application()
    factory = RequestFactory(HTTP_HOST="127.0.0.1")

    def prepare(make_request):
        method, path, body, headers = make_request()
        return factory.generic(method, path, data=body or b"", content_type="application/json", headers=headers).environ

    def answer(environ):
        statuses = []
        response = app(environ, lambda status, _headers, _exc=None: statuses.append(status))
        b"".join(response)
        response.close()  # request_finished, as the server does
        if not statuses[0].startswith("2"):
            raise SystemExit(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']} answered {statuses[0]} in process")

    return prepare, answer


def _backend_seconds() -> float:
    """CPU time so far of this connection's PostgreSQL backend; 0 on SQLite (no backend)."""
    if connection.vendor != "postgresql":
        return 0.0
    fields = Path(f"/proc/{connection.connection.info.backend_pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def cpu_per_call(calls: dict, batches: int = 10, batch_seconds: float = 0.2) -> dict[str, dict]:
    """{name: {"us": µs of CPU a call, "backend_us": of which the database backend's}} for `calls`
    ({name: a function returning (method, path, body, headers)}), after some uncounted calls.

    The calls take turns, a batch of about `batch_seconds` each (a search takes longer than a
    pull: fewer of them go in a batch), `batches` times over, so that each call's batches spread
    over the whole pass and a busy moment of the machine does not land on one call alone. This
    process's share is the call's cheapest batch; the backend's is its mean over all of them,
    since its CPU time is counted in clock ticks (10 ms), too coarse for one batch."""
    prepare, answer = caller()
    sizes = {}
    for name, make_request in calls.items():
        # The second half of the warm-up, timed, sizes the call's batches.
        first, second = ([prepare(make_request) for _ in range(WARM_UP_CALLS // 2)] for _ in range(2))
        for environ in first:
            answer(environ)
        started = time.process_time()
        for environ in second:
            answer(environ)
        one = (time.process_time() - started) / len(second)
        sizes[name] = max(5, min(500, int(batch_seconds / max(one, 1e-6))))
    connection.ensure_connection()
    cheapest = dict.fromkeys(calls, float("inf"))
    backend = dict.fromkeys(calls, 0.0)
    for _ in range(batches):
        for name, make_request in calls.items():
            environs = [prepare(make_request) for _ in range(sizes[name])]  # not counted
            started, backend_started = time.process_time(), _backend_seconds()
            for environ in environs:
                answer(environ)
            cheapest[name] = min(cheapest[name], (time.process_time() - started) / sizes[name])
            backend[name] += _backend_seconds() - backend_started
    return {
        name: {
            "us": (cheapest[name] + backend[name] / (batches * sizes[name])) * 1e6,
            "backend_us": backend[name] / (batches * sizes[name]) * 1e6,
        }
        for name in calls
    }
