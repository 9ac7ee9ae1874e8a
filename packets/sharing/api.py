"""The wire API of sharing (a hub extension): POST /v1/packets/{id}/shares, GET /v1/shares and
DELETE /v1/shares/{id}."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, error_responses, no_content_method
from core.params import body, query
from packets.sharing import selectors, services
from packets.sharing.serializers import (
    RemoteShareCreatedSerializer,
    ShareCreatedSerializer,
    ShareCreateRequestSerializer,
    ShareListSerializer,
    SharesQuerySerializer,
)


@extend_schema_view(
    post=extend_schema(
        summary="Share a packet with a person (hub extension)",
        description=(
            "Hands the packet to one person by username: they may then read it wherever reading happens "
            "(GET /v1/packets/{id}, thread, search, export), never change it. A personal packet is shared by "
            "its creator; a team packet by any member, if the team allows sharing outside it "
            "(`share_outside`, 403 otherwise). 201 with the new share; 200 with the existing one when the "
            "same person already has it from the caller (its note replaced). Unknown username: 404 "
            '`{"error": "no such user"}`; the caller themselves: 400; a packet the caller cannot read: 404. '
            "Attempts per sender are limited, an unknown username's too (429 with Retry-After). "
            "`to` as `username@host[:port]` shares with a person on another hub (federation): the same rules, "
            "then 403 naming the setting when this hub does not talk to that one; 202 with the share `pending`, "
            "which its `state` (GET /v1/shares?direction=out) turns `delivered` or `failed` with the reason."
        ),
        request={"application/json": ShareCreateRequestSerializer},
        responses={
            201: ShareCreatedSerializer,
            200: ShareCreatedSerializer,
            202: RemoteShareCreatedSerializer,
            **error_responses(400, 403, 404, 409, 429),
        },
    ),
)
class PacketShares(APIView):
    def post(self, request, packet_id):
        asked = body(ShareCreateRequestSerializer, request)
        if services.shares_remote(asked["to"]):
            share = services.share_remote_create(
                actor=request.user, packet_id=packet_id, to=asked["to"], note=asked["note"]
            )
            return Response(RemoteShareCreatedSerializer({"share": share}).data, status=202)
        share, created = services.share_create(
            actor=request.user,
            packet_id=packet_id,
            to=asked["to"],
            note=asked["note"],
            link=services.packet_page_link(request),
        )
        return Response(ShareCreatedSerializer({"share": share}).data, status=201 if created else 200)


@extend_schema_view(
    get=extend_schema(
        summary="Shares with the caller, or by them (hub extension)",
        description="`direction=in` (the default) is the caller's inbox; `out`, what they shared. Newest first.",
        parameters=[SharesQuerySerializer],
        responses={200: ShareListSerializer, **error_responses(400)},
    ),
)
class ShareCollection(APIView):
    def get(self, request):
        asked = query(SharesQuerySerializer, request)
        listed = selectors.shares_list(viewer=request.user, direction=asked["direction"], limit=asked["limit"])
        return Response(ShareListSerializer({"shares": listed}).data)


@extend_schema_view(
    delete=extend_schema(
        summary="Withdraw or dismiss a share (hub extension)",
        description=(
            "Its sender withdraws it, or its recipient dismisses it; the recipient's next request no longer "
            "reads the packet through it. 404 for anyone else."
        ),
        responses={204: NO_CONTENT, **error_responses(404)},
    ),
)
class ShareItem(APIView):
    delete = no_content_method(services.share_delete)
