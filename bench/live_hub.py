"""The hub on a free loopback port, for the bench scripts (bench.py, export.py) and the tests that
need a real server (hub/tests/test_outages.py, hub/tests/test_log_masking.py, hub/tests/test_web_server.py,
which import this module as bench.live_hub).

hub() starts it as production does (`python web.py`: granian); gunicorn() serves the bench's
floor (bench/floor.py under gunicorn's sync workers, the fixed yardstick) and whatever else it is
given."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_up(
    port: int,
    server: subprocess.Popen | None = None,
    log: Path | None = None,
    seconds: float = 30,
    path: str = "/v1/healthz",
):
    """Return once the server on `port` answers `path` (/v1/healthz). Raises RuntimeError when
    `seconds` pass first, or when `server` (its process) exits; the message holds the `log` file,
    when there is one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (server is None or server.poll() is None):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    exited = server is not None and server.poll() is not None
    raise RuntimeError(
        ("the server exited" if exited else "the server did not come up") + (f":\n{log.read_text()}" if log else "")
    )


def _stop(server: subprocess.Popen, seconds: float) -> None:
    server.terminate()
    try:
        server.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)


@contextmanager
def hub(
    *,
    workers: int = 1,
    env: Mapping[str, str | None] | None = None,
    log: Path | None = None,
    health: str = "/v1/healthz",
    cwd: Path = ROOT,
    **popen,
):
    """Start the hub as production does, `python web.py` (granian), on a free loopback port with
    `workers` worker processes (WEB_CONCURRENCY), and wait until it answers `health`; yields (the
    server's main process, its port) and stops it on the way out.

    `env`: variables set over this process's environment (WEB_THREADS, WEB_ACCESS_LOG,
    DJANGO_SETTINGS_MODULE, DATABASE_URL...); None unsets one. `popen`: subprocess.Popen's other
    keywords (stdout, stderr...); `log`: the log file to show when it does not start."""
    port = free_port()
    environment = {**os.environ}
    for name, value in {**(env or {}), "WEB_HOST": "127.0.0.1", "PORT": str(port)}.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    environment["WEB_CONCURRENCY"] = str(workers)
    server = subprocess.Popen([sys.executable, "web.py"], cwd=cwd, env=environment, **popen)
    try:
        wait_until_up(port, server, log, path=health)
        yield server, port
    finally:
        # web.py gives a worker 30 s to finish its requests before it is killed.
        _stop(server, 40)


@contextmanager
def gunicorn(
    *options: str,
    workers: int = 1,
    log: Path | None = None,
    app: str = "hub.wsgi:application",
    health: str = "/v1/healthz",
    cwd: Path = ROOT,
    **popen,
):
    """Start `app` under gunicorn on a free loopback port, with `workers` sync workers and the
    other command-line `options`, and wait until it answers `health`; yields (the gunicorn
    process, its port) and stops it on the way out. The bench's floor runs so (bench/floor.py).
    `popen`: subprocess.Popen's keywords (env, stdout...); `log`: the log file to show when it
    does not start."""
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            app,
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            *options,
        ],
        cwd=cwd,
        **popen,
    )
    try:
        wait_until_up(port, server, log, path=health)
        yield server, port
    finally:
        _stop(server, 30)
