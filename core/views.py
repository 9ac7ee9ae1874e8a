"""Site-wide views: health and readiness checks, the "Get the client" page and the wheel it
offers, and the error pages (JSON under /v1, HTML elsewhere)."""

import sys

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import FileResponse, Http404, HttpResponse, HttpResponsePermanentRedirect, HttpResponseRedirect
from django.shortcuts import render
from django.urls import Resolver404, get_resolver, get_urlconf, resolve, reverse
from django.utils.http import http_date
from django.views.decorators.http import require_safe
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core import client_wheel
from core.api import error_responses, json_error
from core.links import hub_url
from core.serializers import HealthSerializer, NotReadySerializer, ReadinessSerializer
from ltm.protocol.packet import LATEST_VERSION

# What healthz answers, as DRF's renderer writes it: it never changes, so it is written once.
HEALTHY = JSONRenderer().render(HealthSerializer({"ok": True, "version": LATEST_VERSION}).data)


class Healthz(APIView):
    """GET /v1/healthz, no token. A DRF view (CSRF-exempt, a JSON 405 for other methods) so that
    it is in the OpenAPI description, but GET and HEAD answer the same bytes every time, without
    DRF's request, negotiation and renderer: load balancers and clients ask it often, and it is
    the hub's own floor."""

    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head"]

    def dispatch(self, request, *args, **kwargs):
        if request.method in ("GET", "HEAD"):
            return HttpResponse(HEALTHY, content_type="application/json")
        return super().dispatch(request, *args, **kwargs)

    @extend_schema(summary="Health check", responses={200: HealthSerializer, **error_responses()})
    def get(self, request):  # what the OpenAPI description reads; dispatch() answers first
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


@require_safe
def client_page(request):
    """/client/: the exact lines that install the Python client from this hub and sign it in, the
    public Go client beside it, and the agent lines. Without a built wheel, how to build one."""
    return _client_page(request, status=200)


def _client_page(request, *, status: int, asked: str = ""):
    hub = hub_url(request)
    wheel = client_wheel.built_wheel()
    context = {
        "hub_url": hub,
        "wheel": wheel,
        "wheel_size": wheel.stat().st_size if wheel else 0,
        "wheel_url": hub + reverse("client-wheel", args=[wheel.name]) if wheel else "",
        "wheel_dir": client_wheel.wheel_dir(),
        "asked": asked,
    }
    return render(request, "core/client.html", context, status=status)


@require_safe
def client_wheel_latest(request):
    """/client/ltm.whl, a link that lasts: a redirect to the wheel's own file name, which pip and
    pipx need (they refuse to install from a URL whose file name is not a wheel's)."""
    wheel = client_wheel.built_wheel()
    if wheel is None:
        return _client_page(request, status=404, asked=request.path)
    return HttpResponseRedirect(reverse("client-wheel", args=[wheel.name]))


@require_safe
def client_wheel_file(request, filename):
    """/client/<the wheel's file name>: the wheel, and nothing else of the folder."""
    wheel = client_wheel.built_wheel()
    if wheel is None or filename != wheel.name:
        return _client_page(request, status=404, asked=request.path)
    stat = wheel.stat()
    response = FileResponse(wheel.open("rb"), as_attachment=True, filename=wheel.name)
    response["Content-Type"] = "application/zip"
    response["Last-Modified"] = http_date(stat.st_mtime)
    response["Cache-Control"] = "public, max-age=300"  # a rebuild keeps the name when the version stays
    return response


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


def _hub_not_found(request, exception):
    """What production answers to a 404: the project's handler404 (not_found above)."""
    handler = get_resolver(get_urlconf()).resolve_error_handler(404)
    return handler(request, exception=exception)


class HubNotFoundPages:
    """Development only (hub/settings/local.py): with DEBUG on, Django answers a missing page with
    its technical 404, a yellow page listing every URL pattern with no way back; this middleware
    answers with the hub's own 404 page instead, as production does. The rest of DEBUG's help (the
    technical 500 page, template errors) stays. Django has no setting for this: its exception
    handling calls the technical 404 whenever DEBUG is on.

    Last in MIDDLEWARE, it sees the two ways a 404 arises: a view raising Http404 (its
    process_exception runs first) and a path no URL pattern matches (resolution fails before any
    view, so the request has no resolver_match)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None:
            return _hub_not_found(request, Http404(request.path))
        return response

    def process_exception(self, request, exception):
        if isinstance(exception, Http404):
            return _hub_not_found(request, exception)
        return None
