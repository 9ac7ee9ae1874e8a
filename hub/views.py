"""Site-wide views: health check and the error pages (JSON under /v1, HTML elsewhere)."""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from hub.api import json_error
from ltm.packet import LATEST_VERSION


@require_GET
def healthz(request):
    return JsonResponse({"ok": True, "version": LATEST_VERSION})


def _is_api(request) -> bool:
    return request.path.startswith("/v1/") or request.path.startswith("/oauth/")


def not_found(request, exception=None):
    if _is_api(request):
        return json_error("not found", 404)
    return render(request, "404.html", status=404)


def server_error(request):
    if _is_api(request):
        return json_error("internal error; the hub logged it", 500)
    return render(request, "500.html", status=500)


def bad_request(request, exception=None):
    if _is_api(request):
        return json_error("bad request", 400)
    return render(request, "400.html", status=400)


def home(request):
    """The front page: what the hub is and how to connect the `ltm` client to it."""
    return render(request, "home.html", {"hub_url": request.build_absolute_uri("/").rstrip("/")})
