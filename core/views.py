"""Site-wide views: health check and the error pages (JSON under /v1, HTML elsewhere)."""

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


def server_error(request):
    if _is_api(request):
        return json_error("internal error; the hub logged it", 500)
    return render(request, "500.html", status=500)


def bad_request(request, exception=None):
    if _is_api(request):
        return json_error("bad request", 400)
    return render(request, "400.html", status=400)
