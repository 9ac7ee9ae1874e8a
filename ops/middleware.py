"""Every request counted (ops.metrics) and, when the request log is on, written as one line."""

import logging
import time

from django.conf import settings
from django.utils.functional import SimpleLazyObject, empty

from ops.metrics import observe, route_of

logger = logging.getLogger("ltm.requests")


class RequestMetrics:
    """Right after core.request_id.RequestId in MIDDLEWARE, so that it times every request, the
    wire API's too (core.middleware.ApiMiddleware hands those to their own list after it). The
    request line (LTM_REQUEST_LOG, on with LOG_FORMAT=json) carries what a log pipeline filters
    on: route, method, status, duration, user id and, from the log filter, the request id."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.log = settings.LTM_REQUEST_LOG

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        observe(request, response, seconds)
        if self.log:
            logger.info(
                "%s %s %s",
                request.method,
                request.path,
                response.status_code,
                extra={
                    "route": route_of(request),
                    "method": request.method,
                    "status": response.status_code,
                    "duration_ms": round(seconds * 1000, 2),
                    "user_id": _user_id(request),
                },
            )
        return response


def _user_id(request) -> str | None:
    """Who made the request, if the request already knows: a session's person is looked up only
    when the page asked for them, and the line does not make it ask."""
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject):
        user = None if user._wrapped is empty else user._wrapped  # noqa: SLF001
    return getattr(user, "pk", None) if user is not None and user.is_authenticated else None
