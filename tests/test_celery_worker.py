"""The background work runs on a real Celery worker, started as operators start it
(`celery -A hub worker`, production settings), with Redis as the broker and the same database as
the web process."""

import os
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from celery.result import EagerResult
from django.conf import settings
from django.db import connection
from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from accounts.tasks import purge_expired_oauth
from accounts.testing import ensure_cli_application

ROOT = Path(__file__).resolve().parents[1]


def _needs_services():
    reason = None
    if not settings.REDIS_URL:
        reason = "needs REDIS_URL (a Redis broker) to start a real worker"
    elif connection.vendor != "postgresql":
        reason = "needs DATABASE_URL on PostgreSQL, so the worker process can see the test database"
    if reason and os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


def _database_url_of_tests() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def _worker_environment() -> dict[str, str]:
    """The production settings, as a deployed worker has them, on the test database."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "hub.settings.production", "SECRET_KEY": "worker-test",
           "ALLOWED_HOSTS": "localhost", "DATABASE_URL": _database_url_of_tests()}
    env.pop("DEBUG", None)  # production refuses to start with DEBUG on
    return env


@pytest.mark.django_db(transaction=True)
def test_purge_runs_on_a_real_worker(alice, monkeypatch):
    _needs_services()
    # The test settings run tasks eagerly; this task must go through the broker to the worker.
    monkeypatch.setitem(purge_expired_oauth.app.conf, "task_always_eager", False)
    ensure_cli_application()
    Grant = get_device_grant_model()
    past = timezone.now() - timedelta(minutes=1)
    expired = Grant.objects.create(client_id="ltm-cli", device_code="expired-code", user_code="BCDFGHJK",
                                   expires=past, interval=5, scope="read write")
    alive = Grant.objects.create(client_id="ltm-cli", device_code="alive-code", user_code="LMNPQRST",
                                 expires=timezone.now() + timedelta(minutes=5), interval=5, scope="read write")

    queue = f"test-{uuid.uuid4().hex}"  # a queue of our own: no other worker takes the task
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "hub", "worker", "--pool", "solo", "--queues", queue,
         "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel", "warning"],
        cwd=ROOT, env=_worker_environment(),
    )
    try:
        result = purge_expired_oauth.apply_async(queue=queue)
        # Run in this process (eager mode), the task would purge without any worker at all.
        assert not isinstance(result, EagerResult), "the task ran eagerly, not on the worker"
        deadline = time.monotonic() + 120  # a busy CI machine starts a worker slowly
        while Grant.objects.filter(pk=expired.pk).exists() and time.monotonic() < deadline:
            assert worker.poll() is None, "the worker exited"
            time.sleep(0.5)
        assert not Grant.objects.filter(pk=expired.pk).exists(), "the worker did not purge the expired grant"
        assert Grant.objects.filter(pk=alive.pk).exists()
    finally:
        worker.terminate()
        worker.wait(timeout=30)
