"""Request checks that apply to every URL of the hub."""

from urllib.parse import unquote

from django.shortcuts import render

from core.api import json_error
from core.parsers import NUL_MESSAGE

FORM = "application/x-www-form-urlencoded"


class CollapseApiLeadingSlashes:
    """`//v1/...` and `//oauth/...` are read as `/v1/...` and `/oauth/...`.

    The Go client joins its configured host and the path as they are, so a host saved with a
    trailing slash (`ltm config set host https://hub/`, or LTM_HOST; only `ltm auth` trims it)
    doubles the slash on every call. Go's own server cleans such paths; so does the hub, for the
    API prefixes only (pages keep Django's usual handling)."""

    PREFIXES = ("v1", "oauth")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path_info = request.path_info
        if path_info.startswith("//"):
            stripped = path_info.lstrip("/")
            if stripped.split("/", 1)[0] in self.PREFIXES:
                script_prefix = request.path[: len(request.path) - len(path_info)]
                request.path_info = "/" + stripped
                request.path = script_prefix + request.path_info
        return self.get_response(request)


class RejectNulCharacters:
    """A NUL character in the path, the query string or a form field is a 400 before any view
    runs: no id, name, code or form value contains one, and PostgreSQL refuses it in a query.
    (JSON bodies are checked by core.parsers.)"""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if self._has_nul(request):
            if request.path.startswith(("/v1/", "/oauth/")):
                return json_error(NUL_MESSAGE, 400)
            return render(request, "400.html", status=400)
        return self.get_response(request)

    @staticmethod
    def _has_nul(request) -> bool:
        if "\x00" in request.path or "\x00" in unquote(request.META.get("QUERY_STRING", "")):
            return True
        if request.method == "POST" and request.content_type == FORM and not request.path.startswith("/v1/"):
            # (/v1 bodies are JSON, checked by core.parsers, whatever their declared type.)
            # Django parses url-encoded forms from request.body, which stays readable for views.
            return any("\x00" in key or any("\x00" in v for v in values) for key, values in request.POST.lists())
        return False
