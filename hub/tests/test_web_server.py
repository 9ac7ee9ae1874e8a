"""web.py, the hub's web server as production runs it (`python web.py`: granian): its settings
from the environment, the secrets filter on both of granian's loggers, and the server itself."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from granian.constants import Interfaces

import web
from bench.live_hub import free_port, hub, wait_until_up
from hub.testing import ROOT

INVITE = "0123456789abcdef0123456789abcdef0123456789abcdef"


def test_the_defaults_serve_the_hub_on_every_interface_a_worker_per_cpu_one_thread_each(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    server = web.server({})
    assert (server.target, server.interface) == ("hub.wsgi:application", Interfaces.WSGI)
    assert (server.bind_addr, server.bind_port) == ("0.0.0.0", 8000)
    assert server.workers == 3  # the CPUs this process may run on
    assert server.blocking_threads == 1
    assert server.log_access and server.log_access_format == web.ACCESS_LINE
    assert server.respawn_failed_workers and server.workers_kill_timeout == 30


def test_the_environment_sets_address_port_workers_threads_and_the_access_log():
    server = web.server(
        {"WEB_HOST": "127.0.0.1", "PORT": "9123", "WEB_CONCURRENCY": "5", "WEB_THREADS": "2", "WEB_ACCESS_LOG": "0"}
    )
    assert (server.bind_addr, server.bind_port) == ("127.0.0.1", 9123)
    assert (server.workers, server.blocking_threads) == (5, 2)
    assert not server.log_access


def test_empty_variables_mean_the_defaults(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    server = web.server({"WEB_CONCURRENCY": "", "WEB_THREADS": "", "WEB_ACCESS_LOG": ""})
    assert (server.workers, server.blocking_threads) == (2, 1)
    assert server.log_access  # only "0" turns it off


def test_both_granian_loggers_carry_the_secrets_filter():
    config = web.logging_config()
    assert config["filters"]["mask_secrets"] == {"()": "core.logs.MaskSecrets"}
    loggers = config["loggers"]
    assert set(loggers) == {"_granian", "granian.access"}
    for name in loggers:
        for handler in loggers[name]["handlers"]:
            assert config["handlers"][handler]["filters"] == ["mask_secrets"], (name, handler)


def test_lines_through_granians_loggers_come_out_masked():
    """granian's own logging set up from web.logging_config(), in a process of its own: an access
    line and a server line that name an invite code."""
    probe = textwrap.dedent(
        f"""
        import logging
        from granian.log import LogLevels, configure_logging
        import web

        configure_logging(LogLevels.info, web.logging_config())
        logging.getLogger("granian.access").info(web.ACCESS_LINE, {{
            "addr": "127.0.0.1", "method": "GET", "path": "/v1/invites/{INVITE}", "protocol": "HTTP/1.1",
            "status": 404, "dt_ms": 1.5,
        }})
        logging.getLogger("_granian").info("worker saw /claim/{INVITE}")
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert '127.0.0.1 - "GET /v1/invites/*** HTTP/1.1" 404 1.5ms' in done.stdout
    assert "worker saw /claim/***" in done.stdout
    assert INVITE not in done.stdout + done.stderr


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_the_server_runs_the_workers_asked_for_without_an_access_log(tmp_path):
    environment = {
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'hub.sqlite3'}",  # healthz reads no database
        "WEB_ACCESS_LOG": "0",
        "REDIS_URL": None,
    }
    output = tmp_path / "output.log"
    with (
        open(output, "wb") as log,
        hub(workers=2, env=environment, stdout=log, stderr=subprocess.STDOUT) as (
            server,
            port,
        ),
    ):
        for _ in range(5):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/healthz", timeout=10).close()
        assert len(_children(server.pid)) == 2
    written = output.read_text()
    assert "Started worker-2" in written
    assert "/v1/healthz" not in written


SLOW_APP = """
import time

def app(environ, start_response):
    time.sleep(float(environ["QUERY_STRING"] or 0))
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"done"]
"""


@pytest.mark.skipif(not hasattr(signal, "SIGTERM"), reason="needs POSIX signals")
def test_sigterm_lets_a_request_in_flight_finish(tmp_path):
    """What a deploy or `docker stop` sends: the server finishes the request it holds, then exits."""
    (tmp_path / "slow.py").write_text(SLOW_APP)
    port = free_port()
    script = textwrap.dedent(
        f"""
        import sys
        sys.path[:0] = [{str(ROOT)!r}, {str(tmp_path)!r}]
        import web

        server = web.server({{"WEB_HOST": "127.0.0.1", "PORT": "{port}", "WEB_CONCURRENCY": "1"}})
        server.target = "slow:app"  # web.py's settings around an app that takes its time
        server.serve()
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    answer = {}
    try:
        wait_until_up(port, process, path="/")

        def slow_request():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/?2", timeout=20) as response:
                answer["status"], answer["body"] = response.status, response.read()

        request = threading.Thread(target=slow_request)
        request.start()
        time.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        request.join(timeout=20)
        assert process.wait(timeout=20) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    assert answer == {"status": 200, "body": b"done"}
