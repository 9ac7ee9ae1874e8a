"""Request checks that apply to every URL of the hub, and the wire API's own middleware list."""

import base64
import re
from urllib.parse import unquote, unquote_plus

from csp.utils import build_policy
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.core.handlers.base import BaseHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin
from django.utils.module_loading import import_string

from core.api import json_error
from core.parsers import NUL_MESSAGE

# The bodies Django parses into request.POST.
FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


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


class RejectNulCharacters(MiddlewareMixin):
    """A NUL character in the path, the query string, a form field (url-encoded or multipart) or
    HTTP Basic credentials is a 400 before any view runs: no id, name, code or form value contains
    one, and PostgreSQL refuses it in a query. (JSON bodies are checked by core.parsers.)"""

    def process_request(self, request):
        try:
            refused = NUL_MESSAGE if self._has_nul(request) else None
        except MultiPartParserError as exc:
            refused = f"the multipart form could not be read: {exc}"
        if refused:
            if request.path.startswith(("/v1/", "/oauth/")):
                return json_error(refused, 400)
            return render(request, "400.html", status=400)
        return None

    @staticmethod
    def _has_nul(request) -> bool:
        if "\x00" in request.path or "\x00" in unquote(request.META.get("QUERY_STRING", "")):
            return True
        if "\x00" in _basic_credentials(request):
            return True
        if request.method == "POST" and request.content_type in FORMS and not request.path.startswith("/v1/"):
            # (/v1 bodies are JSON, checked by core.parsers, whatever their declared type.)
            # Reading request.body first keeps it readable for views that read it themselves
            # (/oauth/register): Django then parses the form from that copy.
            _ = request.body
            return any("\x00" in key or any("\x00" in v for v in values) for key, values in request.POST.lists())
        return False


def _basic_credentials(request) -> str:
    """`client_id:client_secret` of an `Authorization: Basic` header, decoded as the toolkit
    decodes it for /oauth/token (base64, then each part form-decoded); "" for any other header."""
    scheme, _, value = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "basic":
        return ""
    try:
        return unquote_plus(base64.b64decode(value).decode("latin-1"))
    except ValueError:  # not base64 (binascii.Error), or not ASCII
        return ""


# Pages for people that live under /v1: the invite link a browser opens (session sign-in, a form
# that posts) and the API's docs page (Redoc, under a policy of its own). They keep MIDDLEWARE.
PAGES_UNDER_V1 = re.compile(r"/v1/(docs|invites/[^/]+)")


def is_api_path(path_info: str) -> bool:
    """Whether a request is for the wire API, which runs settings.API_MIDDLEWARE."""
    return path_info.startswith("/v1/") and not PAGES_UNDER_V1.fullmatch(path_info)


class ApiMiddleware:
    """A request for the wire API (/v1, but for the pages above) is handed to its own middleware
    list, settings.API_MIDDLEWARE, and skips the rest of MIDDLEWARE: sessions, CSRF, messages,
    allauth, django-csp and django-axes are for pages, and a bearer API needs none of them (its
    views are CSRF-exempt, DRF's and core.api.by_method's, read no session and never check a
    password).

    Django runs one middleware list for every URL; this is the second list, for one prefix. It
    stands right after CollapseApiLeadingSlashes, so `//v1/...` counts as /v1. (The pages' list
    run for every call measured dearer than what the hottest calls save by skipping DRF; the
    history of bench/README.md has the figures.)"""

    def __init__(self, get_response):
        self.get_response = get_response
        self.api = ApiHandler()

    def __call__(self, request):
        if is_api_path(request.path_info):
            return self.api.chain(request)
        return self.get_response(request)


class ApiHandler(BaseHandler):
    """Django's handling of a request past its middleware (URL resolution, the view, exceptions
    turned into responses: BaseHandler._get_response) inside the API's own chain,
    settings.API_MIDDLEWARE. Django's loader (load_middleware) builds its chain from
    settings.MIDDLEWARE alone; this chain is built as that loader builds it, from the API's list,
    and no setting is assigned: each middleware is made with the handler below it, exceptions
    become responses between them, and its view, exception and template-response hooks join the
    handler's lists. Synchronous only, as the API's views are. The handler around ApiMiddleware
    does the rest of a request's handling (the URLconf, closing the request, logging errors)."""

    def __init__(self):
        self._view_middleware, self._template_response_middleware, self._exception_middleware = [], [], []
        chain = convert_exception_to_response(self._get_response)
        for path in reversed(settings.API_MIDDLEWARE):
            factory = import_string(path)
            if not getattr(factory, "sync_capable", True):
                raise ImproperlyConfigured(f"{path} cannot run synchronously: not for API_MIDDLEWARE")
            try:
                middleware = factory(chain)
            except MiddlewareNotUsed:
                continue
            if hasattr(middleware, "process_view"):
                self._view_middleware.insert(0, middleware.process_view)
            if hasattr(middleware, "process_template_response"):
                self._template_response_middleware.append(middleware.process_template_response)
            if hasattr(middleware, "process_exception"):
                self._exception_middleware.append(middleware.process_exception)
            chain = convert_exception_to_response(middleware)
        self.chain = chain


class SitePolicy(MiddlewareMixin):
    """The site's Content-Security-Policy (settings.CONTENT_SECURITY_POLICY, as django-csp writes
    it for pages) on every API answer that has none: a browser that opens one is held to the same
    policy as a page. Built once; no answer of the API takes a nonce or a policy of its own."""

    def __init__(self, get_response):
        super().__init__(get_response)
        self.policy = build_policy()

    def process_response(self, request, response):
        response.headers.setdefault("Content-Security-Policy", self.policy)
        return response
