"""Glue shared by every /v1 endpoint: one error shape, `{"error": "<message>"}`, one time format."""

import json

import orjson
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404, HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from core import errors
from core.serializers import ErrorSerializer

# Each domain error as an HTTP status: the one place this mapping lives.
HTTP_STATUS = {
    errors.HubError: 400,
    errors.BadRequest: 400,
    errors.Unauthorized: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.Gone: 410,
    errors.LengthRequired: 411,
    errors.Unprocessable: 422,
    errors.TooManyRequests: 429,
}

_MESSAGES = {
    exceptions.NotAuthenticated: "missing bearer token",
    exceptions.AuthenticationFailed: "invalid token",
}


def http_status(error: errors.HubError) -> int:
    return next(HTTP_STATUS[kind] for kind in type(error).__mro__ if kind in HTTP_STATUS)


def exception_handler(exc, context):
    """DRF's handler, reshaped so every error body is `{"error": message}`."""
    if isinstance(exc, errors.HubError):
        response = Response({"error": exc.message, **exc.extra}, status=http_status(exc))
        if getattr(exc, "retry_after", None):
            response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, Http404):
        return Response({"error": "not found"}, status=404)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django log it and answer 500
    response.data = {"error": _message(exc, context["request"])}
    return response


def _message(exc, request) -> str:
    # The hub's own wording for what DRF words differently (the packets endpoint says the same).
    if isinstance(exc, exceptions.MethodNotAllowed):
        return f"method {request.method} not allowed"
    for kind, message in _MESSAGES.items():
        if isinstance(exc, kind) and exc.detail == kind.default_detail:
            return message
    detail = exc.detail
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    return _flatten(detail)


def _flatten(detail) -> str:
    if isinstance(detail, (list, tuple)):
        return "; ".join(_flatten(item) for item in detail)
    return str(detail)


def json_error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def error_answer(exc, request) -> HttpResponse:
    """What a DRF view of /v1 answers for `exc` (a HubError, an Http404 or one of DRF's
    APIException), for the function views of `by_method`: exception_handler's response, rendered
    by the API's renderer. A 401 names its scheme as DRF's dispatch has it do (`exc.auth_header`)."""
    response = exception_handler(exc, {"request": request})
    response.accepted_renderer = renderer = api_settings.DEFAULT_RENDERER_CLASSES[0]()
    response.accepted_media_type = renderer.media_type
    response.renderer_context = {}
    return response.render()


def answered_by_the_url_view():
    """A method of a DRF view given to `by_method` as `described_by`: declared there for the
    OpenAPI description (extend_schema), answered by the URL's function view, never by DRF."""

    def method(self, request, *args, **kwargs):
        raise AssertionError(f"by_method's view answers {request.method} without DRF")

    return method


def by_method(described_by: type[APIView], **answers):
    """The view of a /v1 URL whose hottest methods are plain Django function views, `answers` by
    HTTP method (HEAD is answered as GET), with no DRF dispatch around them; its other methods
    (OPTIONS, DELETE, the 405s) go to the DRF view `described_by`. drf-spectacular describes the
    URL from `described_by` (the view's `cls`, as DRF's as_view() sets it), where each method of
    `answers` is declared with `answered_by_the_url_view()`. Each answer carries DRF's Allow header."""
    if missing := [method for method in answers if not hasattr(described_by, method.lower())]:
        raise ImproperlyConfigured(f"{described_by.__name__} does not declare {', '.join(missing)}")
    drf_view = described_by.as_view()
    declared = described_by()
    declared.setup(None)  # as DRF's view does on each request: HEAD where there is GET
    allow = ", ".join(declared.allowed_methods)
    if "GET" in answers:
        answers["HEAD"] = answers["GET"]

    def view(request, *args, **kwargs):
        answer = answers.get(request.method)
        if answer is None:
            return drf_view(request, *args, **kwargs)
        response = answer(request, *args, **kwargs)
        response["Allow"] = allow
        return response

    view.cls, view.initkwargs = described_by, {}
    return csrf_exempt(view)


# A class decorator for the views whose answers carry a secret (an invite code, a token, a client
# secret): Django's never_cache, so no browser or proxy keeps them (Cache-Control: no-store, ...).
no_store = method_decorator(never_cache, name="dispatch")


def _as_named(request, **named) -> dict:
    return named


def no_content_method(service, arguments=_as_named):
    """A view method for an endpoint that acts and answers 204 with no body:
    `service(actor=<the caller>, **arguments(request, **<the URL's arguments>))`. By default the
    URL's arguments go to the service as they are (`packet_id=...`)."""

    def method(self, request, **named):
        service(actor=request.user, **arguments(request, **named))
        return Response(status=204)

    return method


def json_answer(data, status: int = 200) -> HttpResponse:
    """`data` as compact UTF-8 JSON, for the hottest answers: going through a serializer and DRF's
    renderer cost more per row than the query. orjson writes what DRF's JSONRenderer writes, but
    for U+2028 and U+2029, which DRF escapes (for JavaScript older than ES2019) and orjson sends
    as they are: both are valid JSON and the same string to every JSON reader. What orjson refuses
    (a lone surrogate, an integer past 64 bits) goes through json.dumps."""
    try:
        body = orjson.dumps(data)
    except orjson.JSONEncodeError:
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode(
            errors="surrogatepass"
        )
    return HttpResponse(body, status=status, content_type="application/json")


# The OpenAPI description (drf-spectacular): what each error status means on the wire.
ERROR_MEANINGS = {
    400: "bad input: malformed JSON, a wrong type or value, an oversized body, a NUL character anywhere",
    401: "missing bearer token, or an unknown, revoked or expired one",
    403: "the caller may not do this (a member trying an owner-only action, or a token without the scope)",
    404: "no such resource, or one the caller may not see",
    409: "conflicts with the current state",
    410: "invite expired or already consumed",
    411: "the body was sent without a Content-Length header",
    422: "the packet looks like it carries secrets and this hub or team refuses such packets (`findings` says where)",
    429: "too many attempts; wait, then try again",
    503: "a dependency of the hub (database or cache) is down; try again later",
}


NO_CONTENT = OpenApiResponse(description="done; no body")


def error_responses(*statuses: int) -> dict:
    """`{"error": ...}` responses for `extend_schema(responses=...)`; 503 is always possible."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=ERROR_MEANINGS[status])
        for status in sorted({*statuses, 503})
    }
