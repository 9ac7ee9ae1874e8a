"""Glue shared by every /v1 endpoint: one error shape, `{"error": "<message>"}`, one time format."""

import json

import orjson
from django.http import Http404, HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions
from rest_framework.response import Response
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
        return Response({"error": exc.message, **exc.extra}, status=http_status(exc))
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
