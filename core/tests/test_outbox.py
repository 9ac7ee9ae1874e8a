"""The outbox (core.outbox): a task queued for after a commit is kept in the commit's own
transaction until it is queued, and a sweep queues what its process never did, once. The test
settings run tasks eagerly, so "queued" here is "run"; core/tests/test_outbox_crash.py kills a real
process between the commit and the queue."""

import threading
from datetime import timedelta
from unittest import mock

import pytest
from celery import current_app, shared_task
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from core import outbox
from core.models import OutboxTask
from core.outbox import GRACE, outbox_sweep, queue_after_commit

pytestmark = pytest.mark.django_db

RAN: list[str] = []


@shared_task(name="core.tests.test_outbox.remember")
def remember(word: str) -> None:
    RAN.append(word)


@pytest.fixture(autouse=True)
def _nothing_ran_yet():
    RAN.clear()


def later(after=GRACE):
    return timezone.now() + after + timedelta(seconds=1)


def test_the_task_is_queued_once_its_transaction_commits_and_its_row_goes(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            queue_after_commit(remember.name, args=("hello",))
            assert OutboxTask.objects.count() == 1  # written in the same transaction
            assert RAN == []
    assert RAN == ["hello"]
    assert not OutboxTask.objects.exists()
    assert outbox_sweep(now=later()) == 0 and RAN == ["hello"]


def test_a_rolled_back_transaction_queues_nothing_and_keeps_nothing(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            queue_after_commit(remember.name, args=("never",))
            raise RuntimeError("the change fails after the task was asked for")
    assert RAN == [] and not OutboxTask.objects.exists()


def test_what_its_process_never_queued_the_sweep_queues_once_after_the_grace(django_capture_on_commit_callbacks):
    """The commit's hook never ran (its process died): the row is left, and the sweep takes it
    only once its own process has had GRACE to queue it."""
    with django_capture_on_commit_callbacks(execute=False):
        queue_after_commit(remember.name, args=("late",))
    assert outbox_sweep() == 0 and RAN == []
    assert outbox_sweep(now=later()) == 1 and RAN == ["late"]
    assert outbox_sweep(now=later(timedelta(days=1))) == 0 and RAN == ["late"]
    assert not OutboxTask.objects.exists()


def test_the_sweep_queues_what_the_row_keeps_not_what_the_hook_had(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        queue_after_commit(remember.name, args=("secret",), stored=(("kept",), {}))
    assert OutboxTask.objects.get().args == ["kept"]
    outbox_sweep(now=later())
    assert RAN == ["kept"]


def test_a_queue_that_refuses_leaves_the_row_to_a_later_sweep(django_capture_on_commit_callbacks):
    with mock.patch("celery.canvas.Signature.apply_async", side_effect=OperationalError("redis is away")):
        with django_capture_on_commit_callbacks(execute=True):
            queue_after_commit(remember.name, args=("retry",))
        assert OutboxTask.objects.count() == 1
        assert outbox_sweep(now=later()) == 0
    assert RAN == [] and OutboxTask.objects.count() == 1
    assert outbox_sweep() == 0  # not before GRACE after the refusal
    assert outbox_sweep(now=later()) == 1 and RAN == ["retry"]
    assert not OutboxTask.objects.exists()


def test_a_row_another_process_claimed_is_not_queued_again(django_capture_on_commit_callbacks):
    """Two sweeps read the same due row; the one that claims it second finds it moved on."""
    with django_capture_on_commit_callbacks(execute=False):
        queue_after_commit(remember.name, args=("once",))
    seen = OutboxTask.objects.get()
    signature = current_app.signature(seen.task, args=tuple(seen.args))
    assert outbox_sweep(now=later()) == 1
    assert outbox._deliver(seen.pk, seen.due_at, signature, now=later()) is False
    assert RAN == ["once"]


def test_a_claimed_row_whose_claimant_died_is_queued_after_the_lease(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        queue_after_commit(remember.name, args=("orphan",))
    # A sweep claimed it and died before queueing: the row is due again after the lease only.
    OutboxTask.objects.update(due_at=timezone.now() + outbox.LEASE)
    assert outbox_sweep(now=later()) == 0
    assert outbox_sweep(now=later(outbox.LEASE)) == 1 and RAN == ["orphan"]


def test_the_web_process_thread_sweeps_every_interval(monkeypatch):
    swept = threading.Event()

    def sweep_once():
        swept.set()
        outbox._sweeping_in = None  # ends the thread: one sweep is all this test wants

    monkeypatch.setattr(outbox, "outbox_sweep", sweep_once)
    monkeypatch.setattr(outbox, "connections", mock.Mock())
    monkeypatch.setattr(outbox, "_sweeping_in", None)
    with mock.patch.object(outbox.os, "register_at_fork"):
        outbox.sweep_in_background(0.01)
    assert swept.wait(5)
