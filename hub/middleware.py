"""Request checks that apply to every URL of the hub."""

from urllib.parse import unquote

from django.shortcuts import render

from hub.api import json_error
from hub.parsers import NUL_MESSAGE

FORM = "application/x-www-form-urlencoded"


class RejectNulCharacters:
    """A NUL character in the path, the query string or a form field is a 400 before any view
    runs: no id, name, code or form value contains one, and PostgreSQL refuses it in a query.
    (JSON bodies are checked by hub.parsers.)"""

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
            # (/v1 bodies are JSON, checked by hub.parsers, whatever their declared type.)
            # Django parses url-encoded forms from request.body, which stays readable for views.
            return any("\x00" in key or any("\x00" in v for v in values) for key, values in request.POST.lists())
        return False
