"""The hub under a real gunicorn on a free loopback port: the bench scripts (bench.py, export.py)
start it so, and so do the tests that need gunicorn itself (tests/test_outages.py,
tests/test_log_masking.py, which import this module as bench.live_hub)."""

import socket
import subprocess
import sys
import time
import urllib.request
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
    """Return once the hub on `port` answers `path` (/v1/healthz). Raises RuntimeError when `seconds` pass
    first, or when `server` (gunicorn) exits; the message holds the `log` file, when there is one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (server is None or server.poll() is None):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    exited = server is not None and server.poll() is not None
    raise RuntimeError(
        ("gunicorn exited" if exited else "gunicorn did not come up") + (f":\n{log.read_text()}" if log else "")
    )


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
    """Start `app` (the hub) under gunicorn on a free loopback port, with `workers` sync workers and
    the other command-line `options`, and wait until it answers `health`; yields (the gunicorn
    process, its port) and stops it on the way out. gunicorn reads the `gunicorn.conf.py` of `cwd`
    when there is one. `popen`: subprocess.Popen's keywords (env, stdout...); `log`: the log file
    to show when it does not start."""
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
        server.terminate()
        server.wait(timeout=30)
