"""A real Celery worker for the tests that need one (`celery -A hub worker`, production settings, on
the test database, with Redis as the broker): hub/tests/test_celery_worker.py, webhooks' tests."""

import os
import subprocess
import sys
import time
from contextlib import contextmanager

from django.conf import settings
from django.db import connection

from core.testing import skip_unless_services
from hub.testing import ROOT


def needs_services():
    """Skip (fail in CI's run on the services) without Redis and PostgreSQL."""
    reason = None
    if not settings.REDIS_URL:
        reason = "needs REDIS_URL (a Redis broker) to start a real worker"
    elif connection.vendor != "postgresql":
        reason = "needs DATABASE_URL on PostgreSQL, so the worker process can see the test database"
    if reason:
        skip_unless_services(reason)


def _database_url_of_tests() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def _worker_environment() -> dict[str, str]:
    """The production settings, as a deployed worker has them, on the test database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "hub.settings.production",
        "SECRET_KEY": "worker-test",
        "ALLOWED_HOSTS": "localhost",
        "DATABASE_URL": _database_url_of_tests(),
    }
    env.pop("DEBUG", None)  # production refuses to start with DEBUG on
    return env


@contextmanager
def celery_worker(queue: str, loglevel: str = "warning", **env):
    """`celery -A hub worker` on a queue of its own (no other worker takes its tasks), stopped at
    the end."""
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "hub",
            "worker",
            "--pool",
            "solo",
            "--queues",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            loglevel,
        ],
        cwd=ROOT,
        env={**_worker_environment(), **env},
    )
    try:
        yield worker
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def wait_for(done, worker, what: str) -> None:
    deadline = time.monotonic() + 120  # a busy CI machine starts a worker slowly
    while not done() and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker exited"
        time.sleep(0.5)
    assert done(), f"the worker did not {what}"
