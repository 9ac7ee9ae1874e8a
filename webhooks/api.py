"""The wire API of webhooks (a hub extension): /v1/webhooks and each webhook's deliveries. Each
view reads its input at the edge and calls one service or selector."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, error_responses, no_store
from core.links import hub_url
from core.params import body, query
from teams.selectors import team_get_for_member
from webhooks import selectors, services
from webhooks.serializers import (
    DeliveryListQuerySerializer,
    DeliveryListSerializer,
    DeliverySerializer,
    WebhookCreatedSerializer,
    WebhookCreateRequestSerializer,
    WebhookListQuerySerializer,
    WebhookListSerializer,
    WebhookSerializer,
    WebhookUpdateRequestSerializer,
)

EMPTY_BODY = {"application/json": {"type": "object", "maxProperties": 0}}
WHO = "A person's webhook is theirs alone; a team's is managed by its owner and admins (403 for a plain member)."


def _created(webhook, secret: str, status: int) -> Response:
    return Response(WebhookCreatedSerializer(webhook, context={"secret": secret}).data, status)


@extend_schema_view(
    post=extend_schema(
        summary="Add a webhook (hub extension)",
        description=(
            "Deliveries follow the Standard Webhooks specification: `webhook-id`, `webhook-timestamp` and "
            "`webhook-signature` headers, signed with the secret this answer shows once. "
            + WHO
            + " At most 20 per person or team (409)."
        ),
        request={"application/json": WebhookCreateRequestSerializer},
        responses={201: WebhookCreatedSerializer, **error_responses(400, 403, 404, 409)},
    ),
    get=extend_schema(
        operation_id="webhooks_list",
        summary="List webhooks (hub extension)",
        description="Without `team`: the caller's own and those of the teams they own or administer. No secrets.",
        parameters=[WebhookListQuerySerializer],
        responses={200: WebhookListSerializer, **error_responses(400, 403, 404)},
    ),
)
@no_store  # the answer to a POST holds the secret
class WebhookCollection(APIView):
    def post(self, request):
        asked = body(WebhookCreateRequestSerializer, request)
        team = asked.pop("team")
        if team is not None:
            team = team_get_for_member(viewer=request.user, name=team)
        webhook, secret = services.webhook_create(actor=request.user, team=team, hub_url=hub_url(request), **asked)
        return _created(webhook, secret, 201)

    def get(self, request):
        team = query(WebhookListQuerySerializer, request)["team"]
        if team is not None:
            team = team_get_for_member(viewer=request.user, name=team)
        webhooks = selectors.webhook_list(viewer=request.user, team=team)
        return Response(WebhookListSerializer({"webhooks": webhooks}).data)


@extend_schema_view(
    get=extend_schema(
        operation_id="webhooks_get",
        summary="A webhook (hub extension)",
        responses={200: WebhookSerializer, **error_responses(403, 404)},
    ),
    patch=extend_schema(
        summary="Change a webhook: url, events, active, description (hub extension)",
        description="`active: true` turns a webhook the hub turned off on again. " + WHO,
        request={"application/json": WebhookUpdateRequestSerializer},
        responses={200: WebhookSerializer, **error_responses(400, 403, 404)},
    ),
    delete=extend_schema(
        summary="Remove a webhook (hub extension)", responses={204: NO_CONTENT, **error_responses(403, 404)}
    ),
)
class WebhookItem(APIView):
    def get(self, request, webhook_id):
        return Response(WebhookSerializer(selectors.webhook_get(viewer=request.user, webhook_id=webhook_id)).data)

    def patch(self, request, webhook_id):
        changes = body(WebhookUpdateRequestSerializer, request)
        webhook = services.webhook_update(actor=request.user, webhook_id=webhook_id, **changes)
        return Response(WebhookSerializer(webhook).data)

    def delete(self, request, webhook_id):
        services.webhook_delete(actor=request.user, webhook_id=webhook_id)
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        summary="Rotate a webhook's secret (hub extension)",
        description="The new secret is shown once; the old one signs beside it (two signatures) for 24 hours.",
        request=EMPTY_BODY,
        responses={200: WebhookCreatedSerializer, **error_responses(403, 404)},
    ),
)
@no_store
class WebhookRotate(APIView):
    def post(self, request, webhook_id):
        webhook, secret = services.webhook_rotate(actor=request.user, webhook_id=webhook_id)
        return _created(webhook, secret, 200)


@extend_schema_view(
    post=extend_schema(
        summary="Send a webhook.ping delivery (hub extension)",
        description="Sent after the answer, as every delivery; its status shows in the deliveries. 409 while the webhook is off.",
        request=EMPTY_BODY,
        responses={202: DeliverySerializer, **error_responses(403, 404, 409)},
    ),
)
class WebhookPing(APIView):
    def post(self, request, webhook_id):
        delivery = services.webhook_ping(actor=request.user, webhook_id=webhook_id)
        return Response(DeliverySerializer(delivery).data, status=202)


@extend_schema_view(
    get=extend_schema(
        summary="A webhook's deliveries, newest first (hub extension)",
        description="Kept 30 days.",
        parameters=[DeliveryListQuerySerializer],
        responses={200: DeliveryListSerializer, **error_responses(400, 403, 404)},
    ),
)
class WebhookDeliveries(APIView):
    def get(self, request, webhook_id):
        limit = query(DeliveryListQuerySerializer, request)["limit"]
        deliveries = selectors.delivery_list(viewer=request.user, webhook_id=webhook_id, limit=limit)
        return Response(DeliveryListSerializer({"deliveries": deliveries}).data)


@extend_schema_view(
    post=extend_schema(
        summary="Send a delivery again, with the same webhook-id (hub extension)",
        description="Its attempts start afresh. 409 while the webhook is off.",
        request=EMPTY_BODY,
        responses={202: DeliverySerializer, **error_responses(403, 404, 409)},
    ),
)
class DeliveryRedeliver(APIView):
    def post(self, request, webhook_id, delivery_id):
        delivery = services.delivery_redeliver(actor=request.user, webhook_id=webhook_id, delivery_id=delivery_id)
        return Response(DeliverySerializer(delivery).data, status=202)
