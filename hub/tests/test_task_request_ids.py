"""A task queued during a request runs, on a real worker, under that request's id: its log lines
carry it (core.request_id)."""

import json
import uuid

import pytest

from core.request_id import current
from hub.testing.celery_worker import celery_worker, needs_services, wait_for
from oauth.tasks import purge_expired_oauth


@pytest.mark.django_db(transaction=True)
def test_a_task_logs_the_id_of_the_request_that_queued_it(capfd, monkeypatch):
    needs_services()
    monkeypatch.setitem(purge_expired_oauth.app.conf, "task_always_eager", False)
    queue = f"test-{uuid.uuid4().hex}"
    written = []

    def logged_for_the_request() -> bool:
        written.append(capfd.readouterr().err)
        lines = [json.loads(line) for line in "".join(written).splitlines() if line.startswith("{")]
        return any(line.get("request_id") == "req-from-the-web-1" and line["logger"] == "ltm.tasks" for line in lines)

    with celery_worker(queue, loglevel="info", LOG_FORMAT="json") as worker:
        during_a_request = current.set("req-from-the-web-1")
        try:
            purge_expired_oauth.apply_async(queue=queue)
        finally:
            current.reset(during_a_request)
        wait_for(logged_for_the_request, worker, "log the task under the request's id")
