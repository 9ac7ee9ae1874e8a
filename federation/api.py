"""Federation's endpoints: the hub's identity document (GET /.well-known/ltm-hub) and its inbox
(POST /v1/federation/inbox), both without a token: the inbox authenticates each message by its
HTTP signature (federation.inbox)."""

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import error_responses
from core.errors import Forbidden, NotFound
from core.serializers import ErrorSerializer
from federation import documents, inbox, peers
from federation.serializers import AcceptedSerializer, HubDocumentSerializer, MessageSerializer

CACHE_SECONDS = 300


class HubDocument(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["get", "head", "options"]

    @extend_schema(
        summary="The hub's identity for other hubs (federation)",
        description=(
            "Its URL, name, protocol, software, inbox and the Ed25519 keys it signs with (JWK, RFC 8037), the "
            "next key published beside the current one before a rotation. Open to any origin (CORS), cacheable. "
            "404 when federation is off."
        ),
        responses={200: HubDocumentSerializer, **error_responses(404)},
        tags=["federation"],
    )
    def get(self, request):
        if settings.LTM_FEDERATION == "off":
            raise NotFound(peers.OFF)
        response = Response(HubDocumentSerializer(documents.identity()).data)
        response["Access-Control-Allow-Origin"] = "*"
        response["Cache-Control"] = f"public, max-age={CACHE_SECONDS}"
        return response


class Inbox(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    http_method_names = ["post", "options"]

    @extend_schema(
        summary="Receive a message from another hub (federation)",
        description=(
            "A share, update or withdraw of a packet, signed per RFC 9421 by the sending hub (docs/federation.md): "
            "`Signature-Input` covering `@method`, `@target-uri`, `content-digest` and `content-type` with "
            '`created` (at most 5 minutes old), `keyid` and `alg="ed25519"`, tag `ltm-federation`; '
            "`Content-Digest` (RFC 9530). 400 malformed; 401 a signature, digest, age or key refused; 403 "
            "federation off, or the sender's hub blocked or not a peer; 404 `no such user`; 409 a replayed "
            "message id or a packet id held by another packet; 422 the packet's signature or schema, or this "
            "hub's secret scan refuses it. Each refusal's `error` is the reason the sender shows."
        ),
        request={"application/json": MessageSerializer},
        parameters=[
            OpenApiParameter("Signature", str, OpenApiParameter.HEADER, required=True, description="RFC 9421"),
            OpenApiParameter("Signature-Input", str, OpenApiParameter.HEADER, required=True, description="RFC 9421"),
            OpenApiParameter("Content-Digest", str, OpenApiParameter.HEADER, required=True, description="RFC 9530"),
        ],
        responses={
            200: OpenApiResponse(AcceptedSerializer, description="applied"),
            **error_responses(400, 403, 404, 409, 422),
            401: OpenApiResponse(ErrorSerializer, description="the signature, its digest, its age or its key refused"),
        },
        tags=["federation"],
    )
    def post(self, request):
        target = peers.own_url() + request.get_full_path()
        if settings.LTM_FEDERATION == "off":
            raise Forbidden(peers.OFF)
        accepted = inbox.message_receive(url=target, headers=dict(request.headers), body=request.body)
        return Response(AcceptedSerializer(accepted).data)
