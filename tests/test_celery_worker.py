"""The background work runs on a real Celery worker, started as operators start it
(`celery -A hub worker`, production settings), with Redis as the broker and the same database as
the web process: the hourly purge, and the mail of an invite by e-mail."""

import os
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from datetime import timedelta
from email import message_from_bytes
from pathlib import Path

import pytest
from celery.result import EagerResult
from django.conf import settings
from django.db import connection
from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from core.testing import skip_unless_services
from oauth.tasks import purge_expired_oauth
from oauth.testing import ensure_cli_application
from teams.models import Invite
from teams.services import invite_accept, invite_create
from teams.testing import make_team

ROOT = Path(__file__).resolve().parents[1]


def _needs_services():
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
def _worker(queue: str, **env):
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
            "warning",
        ],
        cwd=ROOT,
        env={**_worker_environment(), **env},
    )
    try:
        yield worker
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def _wait_for(done, worker, what: str) -> None:
    deadline = time.monotonic() + 120  # a busy CI machine starts a worker slowly
    while not done() and time.monotonic() < deadline:
        assert worker.poll() is None, "the worker exited"
        time.sleep(0.5)
    assert done(), f"the worker did not {what}"


@pytest.mark.django_db(transaction=True)
def test_purge_runs_on_a_real_worker(alice, monkeypatch):
    _needs_services()
    # The test settings run tasks eagerly; this task must go through the broker to the worker.
    monkeypatch.setitem(purge_expired_oauth.app.conf, "task_always_eager", False)
    ensure_cli_application()
    Grant = get_device_grant_model()
    past = timezone.now() - timedelta(minutes=1)
    expired = Grant.objects.create(
        client_id="ltm-cli",
        device_code="expired-code",
        user_code="BCDFGHJK",
        expires=past,
        interval=5,
        scope="read write",
    )
    alive = Grant.objects.create(
        client_id="ltm-cli",
        device_code="alive-code",
        user_code="LMNPQRST",
        expires=timezone.now() + timedelta(minutes=5),
        interval=5,
        scope="read write",
    )

    queue = f"test-{uuid.uuid4().hex}"
    with _worker(queue) as worker:
        result = purge_expired_oauth.apply_async(queue=queue)
        # Run in this process (eager mode), the task would purge without any worker at all.
        assert not isinstance(result, EagerResult), "the task ran eagerly, not on the worker"
        _wait_for(lambda: not Grant.objects.filter(pk=expired.pk).exists(), worker, "purge the expired grant")
        assert Grant.objects.filter(pk=alive.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_an_invite_mail_is_sent_by_a_real_worker(alice, bob, tmp_path, monkeypatch):
    """An e-mail invite made through teams.services is queued after commit, and the worker sends
    the mail with its link; the worker writes mail to files in a folder this test reads."""
    _needs_services()
    app = purge_expired_oauth.app
    queue = f"test-{uuid.uuid4().hex}"
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setitem(app.conf, "task_default_queue", queue)  # what .delay() sends goes to our worker
    outbox = tmp_path / "mail"
    outbox.mkdir()
    team = make_team(alice, "alpha")

    with _worker(
        queue, EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend", EMAIL_FILE_PATH=str(outbox)
    ) as worker:
        invite, code = invite_create(
            actor=alice, team=team, email="sam@example.org", link=lambda code: f"http://hub.test/v1/invites/{code}"
        )
        _wait_for(lambda: any(outbox.iterdir()), worker, "send the invite mail")

    [mail] = [message_from_bytes(path.read_bytes()) for path in outbox.iterdir()]
    assert mail["To"] == "sam@example.org" and "alpha" in mail["Subject"]
    text = next(part for part in mail.walk() if part.get_content_type() == "text/plain").get_payload(decode=True)
    assert f"http://hub.test/v1/invites/{code}" in text.decode()
    assert Invite.objects.get(pk=invite.pk).mailed_at is not None
    # The link in the mail works.
    invite_accept(code=code, actor=bob)
    assert team.memberships.filter(user=bob).exists()
