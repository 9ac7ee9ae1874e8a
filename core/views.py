"""Site-wide views: the health check (JSON for programs, and /status, the same facts as a page for
people) and the error pages (JSON under /v1, HTML elsewhere)."""

import sys

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import Resolver404, get_resolver, get_urlconf, resolve
from django.views.decorators.http import require_safe
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import error_responses, json_error
from core.request_id import request_id_of
from core.serializers import HealthSerializer
from ltm.protocol.packet import LATEST_VERSION

# What healthz answers (the newest packet version, the protocol's, and the hub's own version), as
# DRF's renderer writes it: it never changes, so it is written once.
HEALTH = {"ok": True, "version": LATEST_VERSION, "hub": settings.LTM_VERSION}
HEALTHY = JSONRenderer().render(HealthSerializer(HEALTH).data)


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
        return Response(HealthSerializer(HEALTH).data)


healthz = Healthz.as_view()


@require_safe
def status(request):
    """GET /status: what /v1/healthz answers, as a page for people (the footer's *status* link).
    Programs keep asking /v1/healthz, whose bytes never change."""
    return render(request, "core/status.html", {"health": HEALTH})


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
        # The request id (core.request_id) lets the person quote the failure and the operator
        # find its lines; the answer's X-Request-ID header carries it too.
        request_id = request_id_of(request)
        return json_error(f"internal error; the hub logged it{f' as request {request_id}' if request_id else ''}", 500)
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
