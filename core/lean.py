"""The lean lane: the wire API's hottest calls answered without Django's URL resolution, its
middleware chain's wrappers and DRF's dispatch, which together cost a pull about as much as
finding its token and reading its row.

It is a WSGI application around Django's (hub/wsgi.py). For a request that one of its routes
names (a method and an exact path) it does what Django and DRF do, with the same code: the
request signals, a WSGIRequest, the hooks of settings.API_MIDDLEWARE (the host check, the
security and policy headers), the view's own authentication and permission classes, then the
answer function that the DRF view itself calls, and DRF's Allow header.

It answers only what succeeds. A request that any of those refuses (a bad host, no token, a
refused scope, a 4xx from the service) or that fails unexpectedly is handed to Django as it
arrived, and Django answers it as if the lane were not there. The services refuse before they
write anything, so Django repeats nothing that was done.

tests/test_lean_lane.py holds both paths to the same answers, byte for byte and header for
header; settings.LTM_LEAN_API turns the lane off.
"""

import io
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core import signals
from django.core.exceptions import ImproperlyConfigured, SuspiciousOperation
from django.core.handlers.wsgi import WSGIRequest, get_script_name
from django.http import HttpResponse
from django.urls import set_script_prefix, set_urlconf
from django.utils.deprecation import MiddlewareMixin
from django.utils.module_loading import import_string
from rest_framework.exceptions import APIException
from rest_framework.views import APIView

from core.errors import HubError


@dataclass(frozen=True)
class LeanRoute:
    """`method` and a path matching `path` (a regular expression over the whole path; its named
    groups are the answer's arguments) are answered by `answer(request, **groups)`, the function
    that `view`, the DRF view Django resolves the same URL to, calls for that method."""

    method: str
    path: str
    view: type[APIView]
    answer: Callable[..., HttpResponse]


class _Refused(Exception):
    """Something the lane does not answer itself: Django will."""


# What refuses a request on the way (a bad host, a refused token, a service's 4xx): Django answers.
REFUSALS = (_Refused, HubError, APIException, SuspiciousOperation)
logger = logging.getLogger(__name__)


class LeanLane:
    def __init__(self, django_app, routes: list[LeanRoute]):
        self.django_app = django_app
        self.routes = [(route, re.compile(route.path), _View(route.view)) for route in routes]
        self.hooks = [_hooks(path) for path in settings.API_MIDDLEWARE]

    def __call__(self, environ, start_response):
        found = self._route(environ)
        if found is None:
            return self.django_app(environ, start_response)
        route, arguments, view = found
        body = _KeptInput(environ["wsgi.input"])
        set_script_prefix(get_script_name(environ))
        signals.request_started.send(sender=self.__class__, environ=environ)
        request = WSGIRequest({**environ, "wsgi.input": body})
        try:
            response = self._answer(request, route, arguments, view)
        except REFUSALS:
            return self.django_app({**environ, "wsgi.input": body.again()}, start_response)
        except Exception as error:  # Django answers and logs it; this line says the lane met it first
            logger.warning("lean lane: %s %s handed to Django after %s", route.method, route.path, type(error).__name__)
            return self.django_app({**environ, "wsgi.input": body.again()}, start_response)
        cookies = [("Set-Cookie", cookie.output(header="")) for cookie in response.cookies.values()]
        start_response(f"{response.status_code} {response.reason_phrase}", [*response.items(), *cookies])
        return response  # its close() sends request_finished, as Django's answers do

    def _route(self, environ):
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        for route, pattern, view in self.routes:
            if route.method == method and (match := pattern.fullmatch(path)):
                return route, match.groupdict(), view
        return None

    def _answer(self, request, route, arguments, view) -> HttpResponse:
        set_urlconf(settings.ROOT_URLCONF)
        for process_request, _ in self.hooks:
            if process_request and process_request(request) is not None:
                raise _Refused
        view.admit(request)
        response = route.answer(request, **arguments)
        if response.status_code >= 300:
            raise _Refused  # Django logs what it answers with an error status
        response["Allow"] = view.allow
        for _, process_response in reversed(self.hooks):
            if process_response:
                response = process_response(request, response)
        return response


class _View:
    """What DRF's dispatch does for `view_class` before its handler runs, as far as the lane
    needs it: authentication and permissions (and throttles, were any set). A view that asks for
    more (versioning, a choice of renderers) is not for the lane."""

    def __init__(self, view_class: type[APIView]):
        self.view = view_class()
        if self.view.versioning_class is not None or len(self.view.renderer_classes) != 1:
            raise ImproperlyConfigured(f"{view_class.__name__} negotiates or versions: not for the lean lane")
        self.authenticators = self.view.get_authenticators()
        self.permissions = self.view.get_permissions()
        self.throttles = self.view.get_throttles()
        self.view.setup(None)  # as Django's as_view() does: HEAD where there is GET
        self.allow = ", ".join(self.view.allowed_methods)

    def admit(self, request) -> None:
        for authenticator in self.authenticators:
            if (found := authenticator.authenticate(request)) is not None:
                request.user, request.auth = found
                break
        else:
            raise _Refused
        if not all(permission.has_permission(request, self.view) for permission in self.permissions):
            raise _Refused
        if not all(throttle.allow_request(request, self.view) for throttle in self.throttles):
            raise _Refused


def _hooks(path: str):
    """(process_request, process_response) of one of API_MIDDLEWARE; only hooks that Django's
    MiddlewareMixin runs around a view, so that calling them is what the chain would do."""
    middleware = import_string(path)
    if not issubclass(middleware, MiddlewareMixin) or any(
        hasattr(middleware, hook) for hook in ("process_view", "process_exception", "process_template_response")
    ):
        raise ImproperlyConfigured(f"{path} is not a request/response hook pair: the lean lane cannot run it")
    instance = middleware(_no_view)
    return getattr(instance, "process_request", None), getattr(instance, "process_response", None)


def _no_view(request):
    raise AssertionError("the lean lane calls the middleware's hooks, not the middleware")


class _KeptInput:
    """The request's wsgi.input, keeping what is read of it so that Django can read it again."""

    def __init__(self, stream):
        self.stream, self.kept = stream, b""

    def read(self, *size):
        data = self.stream.read(*size)
        self.kept += data
        return data

    def readline(self, *size):
        line = self.stream.readline(*size)
        self.kept += line
        return line

    def again(self):
        """The body for Django: what the lane read (all of it: a request's body is read whole, or
        not at all), or the stream untouched."""
        return io.BytesIO(self.kept) if self.kept else self.stream
