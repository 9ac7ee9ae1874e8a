"""The wire API for packets: POST/GET /v1/packets, GET/DELETE /v1/packets/{id},
POST/DELETE /v1/packets/{id}/publish, GET /v1/packets/{id}/thread, GET /v1/export and GET /v1/search."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, error_responses, json_answer, no_content_method
from core.errors import BadRequest, LengthRequired
from core.params import query
from core.parsers import read_json_body
from core.timestamps import rfc3339
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, validate_packet
from packets import selectors, services
from packets.export import export_response
from packets.serializers import (
    ExportQuerySerializer,
    ListQuerySerializer,
    PacketIdSerializer,
    PacketListSerializer,
    PacketSerializer,
    PublishedSerializer,
    PushQuerySerializer,
    SearchQuerySerializer,
    SearchResultsSerializer,
    ThreadSerializer,
)
from teams.selectors import team_get_for_member


def _team(viewer, name: str | None):
    return team_get_for_member(viewer=viewer, name=name) if name is not None else None


def _read_packet(request) -> dict:
    """The body as a validated packet; the size cap is checked before reading or parsing.

    Django reads exactly Content-Length bytes, so the cap holds whatever the header claims; a
    body sent without one (chunked) would be read as empty, so it is refused by name instead."""
    declared = request.META.get("CONTENT_LENGTH") or ""
    if not declared:
        if request.META.get("HTTP_TRANSFER_ENCODING"):
            raise LengthRequired("send the packet with a Content-Length header (chunked bodies are not read)")
        declared = "0"
    if not (declared.isascii() and declared.isdigit()):
        raise BadRequest(f"invalid Content-Length header {declared[:20]!r}")
    if int(declared) > MAX_PACKET_BYTES:
        raise BadRequest(f"packet is {declared} bytes; the maximum is {MAX_PACKET_BYTES} bytes (32 KiB)")
    packet = read_json_body(request.body)
    if packet is None:
        raise BadRequest("empty body: expected a packet as a JSON object")
    try:
        validate_packet(packet)
    except PacketError as exc:
        raise BadRequest(str(exc)) from None
    return packet


@extend_schema_view(
    post=extend_schema(
        summary="Push a packet",
        description="The body is the packet (at most 32 KiB). Re-pushing an id the caller owns replaces it.",
        parameters=[PushQuerySerializer],
        request={"application/json": PacketSerializer},
        responses={201: PacketIdSerializer, **error_responses(400, 404, 409, 411)},
    ),
    get=extend_schema(
        summary="List packets, newest first",
        operation_id="packets_list",
        parameters=[ListQuerySerializer],
        responses={200: PacketListSerializer, **error_responses(404)},
    ),
)
class PacketCollection(APIView):
    def post(self, request):
        team = _team(request.user, query(PushQuerySerializer, request)["team"])
        packet = _read_packet(request)
        stored = services.packet_push(actor=request.user, packet=packet, team=team)
        # PacketIdSerializer describes this answer; written directly, like the list's.
        return json_answer({"id": stored.id}, status=201)

    def get(self, request):
        asked = query(ListQuerySerializer, request)
        packets = selectors.packet_list(viewer=request.user, team_name=asked["team"], limit=asked["limit"])
        # PacketListSerializer describes this answer; it is written directly, the hottest call's
        # rows are too cheap to go through a serializer each.
        return json_answer(
            {
                "packets": [
                    {"id": packet.id, "created_at": rfc3339(packet.created_at), "goal": packet.goal}
                    for packet in packets
                ]
            }
        )


@extend_schema_view(
    get=extend_schema(
        summary="Get a packet",
        operation_id="packets_get",
        description="The body is exactly the packet as pushed (canonical JSON); server facts travel in headers.",
        parameters=[
            OpenApiParameter(
                "X-LTM-Published-At",
                OpenApiTypes.DATETIME,
                OpenApiParameter.HEADER,
                response=[200],
                description="when the packet was published; only while it is",
            ),
            OpenApiParameter(
                "X-LTM-Public-URL",
                OpenApiTypes.URI,
                OpenApiParameter.HEADER,
                response=[200],
                description="the packet's public page; only while it is published",
            ),
        ],
        responses={200: PacketSerializer, **error_responses(404)},
    ),
    delete=extend_schema(summary="Delete a packet", responses={204: NO_CONTENT, **error_responses(404)}),
)
class PacketItem(APIView):
    def get(self, request, packet_id):
        packet = selectors.packet_get(viewer=request.user, packet_id=packet_id)
        response = HttpResponse(packet.body, content_type="application/json")
        # Server facts travel in headers: the body must stay exactly the packet.
        if packet.public_slug:
            response["X-LTM-Published-At"] = rfc3339(packet.published_at)
            response["X-LTM-Public-URL"] = selectors.public_url(request, packet)
        return response

    delete = no_content_method(services.packet_delete)


@extend_schema_view(
    post=extend_schema(
        summary="Publish a packet",
        request=None,
        responses={200: PublishedSerializer, **error_responses(404)},
    ),
    delete=extend_schema(summary="Unpublish a packet", responses={204: NO_CONTENT, **error_responses(404)}),
)
class PacketPublish(APIView):
    """The client sends no body and no content type on POST; nothing here reads one."""

    def post(self, request, packet_id):
        packet = services.packet_publish(actor=request.user, packet_id=packet_id)
        return Response(
            PublishedSerializer({"id": packet.id, "public_url": selectors.public_url(request, packet)}).data
        )

    delete = no_content_method(services.packet_unpublish)


@extend_schema_view(
    get=extend_schema(
        summary="A packet's thread",
        description=(
            "The parent_id chain that holds the packet, as far as the caller may read it: its ancestors "
            "up to the root, then every descendant of those, oldest first. A packet the caller cannot "
            "read is left out, and the chain goes on past it only through packets the caller can read. "
            "404 as for GET /v1/packets/{id}."
        ),
        responses={200: ThreadSerializer, **error_responses(404)},
    ),
)
class PacketThread(APIView):
    def get(self, request, packet_id):
        packets = selectors.packet_thread(viewer=request.user, packet_id=packet_id)
        return Response(ThreadSerializer({"packets": packets}).data)


@extend_schema_view(
    get=extend_schema(
        summary="Export packets",
        description=(
            "Every packet the caller may read (or one team's), streamed. `jsonl`: one packet a line, the "
            "JSON GET /v1/packets/{id} returns for it; `markdown`: one document, a section per packet, "
            "the packets of a thread together. The header X-LTM-Export-Count says how many packets follow."
        ),
        parameters=[
            ExportQuerySerializer,
            OpenApiParameter(
                "X-LTM-Export-Count",
                int,
                OpenApiParameter.HEADER,
                response=[200],
                description="how many packets the export holds",
            ),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (200, "text/markdown"): OpenApiTypes.STR,
            **error_responses(400, 404),
        },
    ),
)
class Export(APIView):
    def perform_content_negotiation(self, request, force=False):
        # ?format= names the export's format here, not one of DRF's renderers (its URL override):
        # errors are JSON whatever it says.
        return super().perform_content_negotiation(request, force=True)

    def get(self, request):
        asked = query(ExportQuerySerializer, request)
        return export_response(viewer=request.user, team=_team(request.user, asked["team"]), format=asked["format"])


# Search.


@extend_schema_view(
    get=extend_schema(
        summary="Search packets, best first",
        description=(
            "Full-text search over every text field a person writes in a packet (goal, next step, "
            "success criteria, constraints, decisions, attempts, methods, open questions, tags and "
            "project name). Words match in any order and case, with English stemming; "
            '"quoted phrases", -word to exclude and OR work as in web search. A packet id, or 10 or '
            "more characters that start one, puts that packet first."
        ),
        parameters=[SearchQuerySerializer],
        responses={200: SearchResultsSerializer, **error_responses(400, 404)},
    ),
)
class PacketSearch(APIView):
    def get(self, request):
        asked = query(SearchQuerySerializer, request)
        hits = selectors.packet_text_search(
            viewer=request.user, text=asked["q"], team_name=asked["team"], limit=asked["limit"]
        )
        # SearchResultsSerializer describes this answer; Hit.result() writes each result as the MCP
        # tools list them, and the answer is written directly, as the list's.
        return json_answer({"results": [hit.result() for hit in hits]})
