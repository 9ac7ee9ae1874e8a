"""Site-wide views: health and readiness checks, and the error pages (JSON under /v1, HTML
elsewhere)."""

import sys

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

from core.api import json_error
from ltm.protocol.packet import LATEST_VERSION


@csrf_exempt  # no state to protect; a wrong method gets the JSON 405 below, not a CSRF page
def healthz(request):
    if request.method not in ("GET", "HEAD"):
        response = json_error(f"method {request.method} not allowed", 405)
        response["Allow"] = "GET, HEAD"
        return response
    return JsonResponse({"ok": True, "version": LATEST_VERSION})


@csrf_exempt
def readyz(request):
    """Whether this process can serve: the database answers, and Redis does when configured. For
    load balancers and health checks; `/v1/healthz` (what the client asks) stays a plain 200."""
    if request.method not in ("GET", "HEAD"):
        response = json_error(f"method {request.method} not allowed", 405)
        response["Allow"] = "GET, HEAD"
        return response
    checks = {"database": _database_answers(), "cache": _cache_answers()}
    down = [name for name, state in checks.items() if state == "unavailable"]
    if down:
        response = JsonResponse({"error": f"not ready: {', '.join(down)} unavailable", **checks}, status=503)
        response["Retry-After"] = RETRY_AFTER_SECONDS
        return response
    return JsonResponse({"ok": True, **checks})


def _database_answers() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return "unavailable"
    return "ok"


def _cache_answers() -> str:
    if "Redis" not in settings.CACHES["default"]["BACKEND"]:
        return "not configured"  # the local-memory cache of one process cannot be down
    from django_redis import get_redis_connection

    try:
        get_redis_connection("default").ping()
    except Exception:  # redis-py's ConnectionError, TimeoutError and the like
        return "unavailable"
    return "ok"


def _is_api(request) -> bool:
    # "//v1/..." too: a client whose hub URL ends in "/" may double the slash.
    return request.path.lstrip("/").startswith(("v1/", "oauth/"))


def not_found(request, exception=None):
    if _is_api(request):
        return json_error("not found", 404)
    trimmed = request.path.rstrip("/")
    local = trimmed.startswith("/") and not trimmed.startswith(("//", "/\\"))  # never another host
    if request.method in ("GET", "HEAD") and local and trimmed != request.path and _resolves(trimmed):
        # Dashboard pages have no trailing slash; someone who types one ("/teams/") lands there.
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirect(trimmed + (f"?{query}" if query else ""))
    return render(request, "404.html", status=404)


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


# A dependency that is down is not a bug of the hub: the client should try again (503), and a load
# balancer should send the traffic elsewhere (/v1/readyz answers 503 too).
DEPENDENCY_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = "5"


def server_error(request):
    """Django's handler500: it runs inside the `except` of the uncaught exception, wherever it was
    raised (a view, DRF, a middleware), so this one place turns an unreachable database into a
    503."""
    if isinstance(sys.exc_info()[1], DEPENDENCY_ERRORS):
        response = (
            json_error("the database is not answering; try again in a few seconds", 503)
            if _is_api(request)
            else render(request, "503.html", status=503)
        )
        response["Retry-After"] = RETRY_AFTER_SECONDS
        return response
    if _is_api(request):
        return json_error("internal error; the hub logged it", 500)
    return render(request, "500.html", status=500)


def bad_request(request, exception=None):
    if _is_api(request):
        return json_error("bad request", 400)
    return render(request, "400.html", status=400)
