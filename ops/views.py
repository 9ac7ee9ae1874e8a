"""/v1/readyz (is this process ready to serve?) and /metrics (the Prometheus scrape)."""

import hashlib
import hmac

from django.conf import settings
from django.http import HttpResponse
from django.views.decorators.http import require_safe
from drf_spectacular.utils import OpenApiResponse, extend_schema
from prometheus_client import CONTENT_TYPE_LATEST
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import json_error
from core.views import RETRY_AFTER_SECONDS
from ops import health
from ops.metrics import exposition
from ops.serializers import NotReadySerializer, ReadinessSerializer

# What makes each state a reason not to serve, in the words of the 503's message.
NOT_READY = {
    "database": {health.UNAVAILABLE: "database unavailable"},
    "cache": {health.UNAVAILABLE: "cache unavailable"},
    "migrations": {health.UNAPPLIED: "migrations unapplied", health.UNAVAILABLE: "migrations unknown"},
    "manual": {health.MISSING: "manual not built"},
}


class Readyz(APIView):
    """GET /v1/readyz, no token: whether this process can serve: the database answers and has run
    this code's migrations, Redis answers when configured, and the manual is built (unless
    LTM_READYZ_MANUAL=0). For load balancers, compose and deploys; `/v1/healthz`, which the client
    asks, stays a plain 200 that touches nothing."""

    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head"]

    @extend_schema(
        summary="Readiness check (hub extension)",
        responses={
            200: ReadinessSerializer,
            503: OpenApiResponse(
                NotReadySerializer, description="something the hub needs is missing; the body names it"
            ),
        },
    )
    def get(self, request):
        database = health.database_state()
        checks = {
            "database": database,
            "cache": health.cache_state(),
            "migrations": health.migrations_state() if database == health.OK else health.UNAVAILABLE,
            "manual": health.manual_state() if settings.LTM_READYZ_MANUAL else health.OK,
        }
        missing = [NOT_READY[name][state] for name, state in checks.items() if state in NOT_READY[name]]
        if not missing:
            return Response(ReadinessSerializer({"ok": True, **checks}).data)
        body = {"error": f"not ready: {', '.join(missing)}", **checks}
        if checks["migrations"] == health.UNAPPLIED:
            body["unapplied"] = health.unapplied_migrations()
        return Response(NotReadySerializer(body).data, status=503, headers={"Retry-After": RETRY_AFTER_SECONDS})


readyz = Readyz.as_view()


@require_safe
def metrics(request):
    """GET /metrics, the Prometheus text format, for a bearer of LTM_METRICS_TOKEN only: without
    the setting the page does not exist (404), and a missing or wrong token is a 401. The token
    is compared in constant time, through digests of equal length."""
    expected = settings.LTM_METRICS_TOKEN
    if not expected:
        return json_error("metrics are off: the operator has not set LTM_METRICS_TOKEN", 404)
    scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(_digest(given.strip()), _digest(expected)):
        response = json_error("the metrics need `Authorization: Bearer <LTM_METRICS_TOKEN>`", 401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)


def _digest(token: str) -> bytes:
    # Digests of equal length: compare_digest's time then depends on neither token's length.
    return hashlib.sha256(token.encode()).digest()
