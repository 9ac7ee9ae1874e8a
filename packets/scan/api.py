"""The wire API of the hub's secret scan (a hub extension): GET /v1/packets/{id}/findings,
POST /v1/packets/{id}/findings/clear and GET /v1/findings (the review queue)."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import error_responses
from core.params import body, query
from packets.pages import team_named
from packets.scan import findings
from packets.scan.serializers import (
    FindingClearRequestSerializer,
    FindingListSerializer,
    ReviewQueueQuerySerializer,
    ReviewQueueSerializer,
)


@extend_schema_view(
    get=extend_schema(
        summary="A packet's secret-scan findings (hub extension)",
        description="Where the hub's secret scan found something that looks like a secret, and whether it was cleared. 404 as for GET /v1/packets/{id}.",
        responses={200: FindingListSerializer, **error_responses(404)},
    ),
)
class PacketFindings(APIView):
    def get(self, request, packet_id):
        rows = findings.findings_list(viewer=request.user, packet_id=packet_id)
        return Response(FindingListSerializer({"findings": rows}).data)


@extend_schema_view(
    post=extend_schema(
        summary="Clear a packet's findings (hub extension)",
        description=(
            "The packet's creator, or the owner or an admin of its team, says why its findings are not secrets: "
            "the quarantine ends (it may be published and shared again) and the team's log keeps who and why."
        ),
        request={"application/json": FindingClearRequestSerializer},
        responses={200: FindingListSerializer, **error_responses(400, 403, 404, 409)},
    ),
)
class PacketFindingsClear(APIView):
    def post(self, request, packet_id):
        asked = body(FindingClearRequestSerializer, request)
        packet = findings.findings_clear(actor=request.user, packet_id=packet_id, reason=asked["reason"])
        return Response(FindingListSerializer({"findings": findings.finding_rows(packet)}).data)


@extend_schema_view(
    get=extend_schema(
        summary="The secret-scan review queue (hub extension)",
        description=(
            "Open findings of the packets the caller pushed, and of every packet of the teams they own or "
            "administer (`team`: only that team's)."
        ),
        parameters=[ReviewQueueQuerySerializer],
        responses={200: ReviewQueueSerializer, **error_responses(404)},
    ),
)
class ReviewQueue(APIView):
    def get(self, request):
        team = team_named(request.user, query(ReviewQueueQuerySerializer, request)["team"])
        queued = [
            {"packet": packet, **finding}
            for packet in findings.review_queue(viewer=request.user, team=team)
            for finding in packet.findings
        ]
        return Response(ReviewQueueSerializer({"findings": queued}).data)
