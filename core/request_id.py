"""The request id: one name for one request in every answer, log line and task it queues.

Every answer carries `X-Request-ID`: the caller's own when it sends a sane one (a proxy or a load
balancer that already names its requests), else a new one. Error pages show it, and a 5xx's JSON
error names it, so that a person can quote it and the operator find its lines. Log records carry
it as `request_id` (RequestContext, a filter on the log handlers), and a Celery task queued
during a request runs with the id of that request (the task's headers carry it; an eager task
runs in the request itself).
"""

import contextvars
import logging
import re
import uuid

from celery.signals import before_task_publish, task_postrun, task_prerun
from django.core.signals import request_finished
from django.dispatch import receiver

HEADER = "X-Request-ID"
META_KEY = "HTTP_X_REQUEST_ID"
TASK_HEADER = "ltm_request_id"

# What a caller may name its request with: what log pipelines and proxies use (uuids, hex, ulids,
# trace ids), short enough for a log line, nothing that could forge one.
SANE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}", re.ASCII)

current = contextvars.ContextVar("request_id", default="")


def new_request_id() -> str:
    return uuid.uuid4().hex


def request_id_of(request) -> str:
    """The id this request goes by ("" outside the middleware, e.g. a test calling a view)."""
    return getattr(request, "request_id", "")


class RequestId:
    """First of MIDDLEWARE, so that every answer (pages, the wire API, errors) carries the header
    and every line logged while it is answered carries the id."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.META.get(META_KEY, "")
        request_id = given if SANE.fullmatch(given) else new_request_id()
        request.request_id = request_id
        # Kept until the answer is sent (request_finished below): Django logs a 4xx or 5xx answer
        # after the middleware has returned it.
        current.set(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


# receiver(), not request_finished.connect, as a decorator: connect() returns None, and the
# function, then held only by the signal's weak reference, would be collected at once.
@receiver(request_finished)
def _request_over(**kwargs):
    current.set("")


class RequestContext(logging.Filter):
    """Gives every log record the id of the request (or task) it was logged for, "-" outside one."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            record.request_id = current.get() or "-"
        return True


@before_task_publish.connect
def _name_the_request(headers=None, **kwargs):
    request_id = current.get()
    if request_id and headers is not None:
        headers[TASK_HEADER] = request_id


_task_tokens: dict[str, contextvars.Token] = {}


@task_prerun.connect
def _run_as_the_request(task_id=None, task=None, **kwargs):
    if task is None or task.request.is_eager:
        return  # an eager task runs inside the request, under its id already
    # Celery hands a message's own headers to the task as attributes of its request (protocol 2).
    request_id = getattr(task.request, TASK_HEADER, None) or (task.request.headers or {}).get(TASK_HEADER)
    if isinstance(request_id, str) and SANE.fullmatch(request_id):
        _task_tokens[task_id] = current.set(request_id)
        logging.getLogger("ltm.tasks").info("%s runs for request %s", task.name, request_id)


@task_postrun.connect
def _end_the_request(task_id=None, **kwargs):
    token = _task_tokens.pop(task_id, None)
    if token is not None:
        current.reset(token)
