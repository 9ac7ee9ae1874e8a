"""Site-wide views: health and readiness checks, and the error pages (JSON under /v1, HTML
elsewhere)."""

import sys

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import Resolver404, resolve
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import error_responses, json_error
from core.serializers import HealthSerializer, NotReadySerializer, ReadinessSerializer
from ltm.protocol.packet import LATEST_VERSION


class Healthz(APIView):
    """GET /v1/healthz, no token. A DRF view (CSRF-exempt, a JSON 405 for other methods) so that
    it is in the OpenAPI description."""

    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head"]

    @extend_schema(summary="Health check", responses={200: HealthSerializer, **error_responses()})
    def get(self, request):
        return Response(HealthSerializer({"ok": True, "version": LATEST_VERSION}).data)


healthz = Healthz.as_view()


class Readyz(APIView):
    """GET /v1/readyz, no token: whether this process can serve (the database answers, and Redis
    does when configured). For load balancers and health checks; `/v1/healthz`, which the client
    asks, stays a plain 200 that touches nothing."""

    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head"]

    @extend_schema(
        summary="Readiness check (hub extension)",
        responses={
            200: ReadinessSerializer,
            503: OpenApiResponse(NotReadySerializer, description="the database or the cache is down"),
        },
    )
    def get(self, request):
        checks = {"database": _database_answers(), "cache": _cache_answers()}
        down = [name for name, state in checks.items() if state == "unavailable"]
        if down:
            body = NotReadySerializer({"error": f"not ready: {', '.join(down)} unavailable", **checks}).data
            return Response(body, status=503, headers={"Retry-After": RETRY_AFTER_SECONDS})
        return Response(ReadinessSerializer({"ok": True, **checks}).data)


readyz = Readyz.as_view()


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
