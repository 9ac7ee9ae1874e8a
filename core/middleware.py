"""Request checks that apply to every URL of the hub."""

import signal
import socket
import threading
from urllib.parse import unquote

from django.conf import settings
from django.db import connections
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


class RequestDeadline:
    """Cuts the database connections of a request still running after
    LTM_REQUEST_DEADLINE_SECONDS, so it fails with a database error (a 503) instead of hanging.

    A database server that stopped answering mid-query cannot enforce its own statement timeout,
    and a query blocked on its socket waits forever: gunicorn would kill the worker and the client
    would get an empty reply. Shutting the socket down wakes psycopg, which raises
    OperationalError, and Django marks the connection unusable. The timer is SIGALRM, so it runs
    only where requests are served on the main thread (gunicorn's sync workers), never under
    runserver's threads.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = settings.LTM_REQUEST_DEADLINE_SECONDS
        if seconds <= 0 or threading.current_thread() is not threading.main_thread():
            return self.get_response(request)
        previous = signal.signal(signal.SIGALRM, _cut_database_connections)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return self.get_response(request)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _cut_database_connections(signum, frame) -> None:
    for connection in connections.all(initialized_only=True):
        try:
            descriptor = connection.connection.pgconn.socket  # psycopg 3
        except Exception:  # not PostgreSQL, or already closed: nothing to cut
            continue
        sock = socket.socket(fileno=descriptor)
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            sock.detach()  # psycopg owns the descriptor
