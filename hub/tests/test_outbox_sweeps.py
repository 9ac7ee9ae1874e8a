"""Who sweeps the outbox (core.outbox) in a deployment: Celery beat every minute, each worker as it
starts, and without a broker a thread of each web process."""

import subprocess
import sys
from unittest import mock

import pytest
from django.conf import settings
from django.utils import timezone

from core.models import OutboxTask
from core.outbox import queue_after_commit
from core.tasks import outbox_sweep_task
from hub.celery import sweep_the_outbox
from hub.testing import ROOT
from oauth.tasks import purge_expired_oauth


def test_beat_sends_the_sweep_by_its_registered_name():
    assert settings.CELERY_BEAT_SCHEDULE["outbox-sweep"]["task"] == outbox_sweep_task.name


@pytest.mark.django_db
def test_a_worker_that_starts_queues_what_is_due(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # its process died before queueing it
        queue_after_commit(purge_expired_oauth.name)
    OutboxTask.objects.update(due_at=timezone.now())
    with mock.patch("hub.celery.connections"):  # the test's connection holds its transaction
        sweep_the_outbox()
    assert not OutboxTask.objects.exists()


THREADS = """
import os, threading
import django
django.setup()
import hub.wsgi
names = lambda: [thread.name for thread in threading.enumerate()]
print("outbox-sweep" in names())
pid = os.fork()
if pid == 0:
    os._exit(0 if "outbox-sweep" in names() else 1)
print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0)
"""


@pytest.mark.parametrize("redis_url, sweeps", [("", True), ("redis://127.0.0.1:6379/10", False)])
def test_the_web_process_sweeps_itself_only_without_a_broker(redis_url, sweeps, tmp_path):
    """hub.wsgi as production loads it: without REDIS_URL (no beat, no worker) a thread of the web
    process sweeps, and so does one in each worker forked from it."""
    environment = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "hub.settings.production",
        "SECRET_KEY": "outbox-test",
        "ALLOWED_HOSTS": "localhost",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'hub.sqlite3'}",
        "REDIS_URL": redis_url,
    }
    result = subprocess.run(
        [sys.executable, "-c", THREADS], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == (["True", "True"] if sweeps else ["False", "False"])
