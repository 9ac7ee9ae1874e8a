"""The wire API for packets: POST/GET /v1/packets, GET/DELETE /v1/packets/{id},
POST/DELETE /v1/packets/{id}/publish, GET /v1/packets/{id}/thread, GET /v1/export and GET /v1/search."""

import re

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, error_responses, json_answer
from core.errors import BadRequest, LengthRequired
from core.parsers import read_json_body
from core.timestamps import rfc3339
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, validate_packet
from packets import selectors, services
from packets.export import FORMATS, export_response
from packets.search import MAX_QUERY_CHARS
from packets.serializers import (
    PacketIdSerializer,
    PacketListSerializer,
    PacketSerializer,
    PublishedSerializer,
    SearchResultsSerializer,
    ThreadSerializer,
)
from teams.selectors import team_get_for_member

TEAM_PARAM = OpenApiParameter(
    "team",
    str,
    description="a team's name: the team's packets instead of the caller's personal ones",
)


def _team_param(request):
    name = request.query_params.get("team")
    return team_get_for_member(viewer=request.user, name=name) if name else None


def _limit_param(request) -> int:
    """?limit=: not a number, 0 or less, or over 500 falls back to 50. A number is what Go's
    strconv.Atoi reads (a sign, then ASCII digits); int() alone would also take " 5", "1_0" and
    other scripts' digits. Longer digit strings are over 500 anyway (and int() refuses 4,300+)."""
    raw = request.query_params.get("limit")
    if not (isinstance(raw, str) and re.fullmatch(r"[+-]?[0-9]{1,18}", raw)):
        return selectors.DEFAULT_LIMIT
    limit = int(raw)
    return limit if 0 < limit <= selectors.MAX_LIMIT else selectors.DEFAULT_LIMIT


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
        parameters=[TEAM_PARAM],
        request={"application/json": PacketSerializer},
        responses={201: PacketIdSerializer, **error_responses(400, 404, 409, 411)},
    ),
    get=extend_schema(
        summary="List packets, newest first",
        operation_id="packets_list",
        parameters=[
            TEAM_PARAM,
            OpenApiParameter(
                "limit",
                int,
                description="1 to 500, default 50; anything else (not a number, 0 or less, over 500) means 50",
            ),
        ],
        responses={200: PacketListSerializer, **error_responses(404)},
    ),
)
class PacketCollection(APIView):
    def post(self, request):
        team = _team_param(request)
        packet = _read_packet(request)
        stored = services.packet_push(actor=request.user, packet=packet, team=team)
        # PacketIdSerializer describes this answer; written directly, like the list's.
        return json_answer({"id": stored.id}, status=201)

    def get(self, request):
        team_name = request.query_params.get("team") or None
        packets = selectors.packet_list(viewer=request.user, team_name=team_name, limit=_limit_param(request))
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

    def delete(self, request, packet_id):
        services.packet_delete(actor=request.user, packet_id=packet_id)
        return Response(status=204)


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

    def delete(self, request, packet_id):
        services.packet_unpublish(actor=request.user, packet_id=packet_id)
        return Response(status=204)


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
            OpenApiParameter("format", str, enum=list(FORMATS), description="jsonl (the default) or markdown"),
            OpenApiParameter(
                "team",
                str,
                description="a team's name: only that team's packets (404 for a non-member)",
            ),
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
        format = request.query_params.get("format") or "jsonl"
        if format not in FORMATS:
            raise BadRequest(f"format must be one of {', '.join(FORMATS)}; got {format[:40]!r}")
        return export_response(viewer=request.user, team=_team_param(request), format=format)


# Search.


def _search_limit_param(request) -> int:
    """?limit= for search: 1 to 100, default 20, read as the list reads it; anything else is a 400
    (a search that silently returned another number of results would mislead)."""
    raw = request.query_params.get("limit")
    if raw is None:
        return selectors.SEARCH_DEFAULT_LIMIT
    if re.fullmatch(r"[+-]?[0-9]{1,18}", raw) and 0 < int(raw) <= selectors.SEARCH_MAX_LIMIT:
        return int(raw)
    raise BadRequest(f"limit must be a whole number from 1 to {selectors.SEARCH_MAX_LIMIT}; got {raw[:20]!r}")


def _search_text_param(request) -> str:
    text = request.query_params.get("q", "")
    if not text.strip():
        raise BadRequest("q is required: the words to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise BadRequest(f"q is {len(text)} characters; the maximum is {MAX_QUERY_CHARS}")
    return text


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
        parameters=[
            OpenApiParameter(
                "q", str, required=True, description=f"what to search for (1 to {MAX_QUERY_CHARS} characters)"
            ),
            OpenApiParameter(
                "team",
                str,
                description="a team's name: only that team's packets (default: the caller's personal packets and every team's)",
            ),
            OpenApiParameter(
                "limit",
                int,
                description=f"1 to {selectors.SEARCH_MAX_LIMIT}, default {selectors.SEARCH_DEFAULT_LIMIT}; anything else is a 400",
            ),
        ],
        responses={200: SearchResultsSerializer, **error_responses(400, 404)},
    ),
)
class PacketSearch(APIView):
    def get(self, request):
        text, limit = _search_text_param(request), _search_limit_param(request)
        team_name = request.query_params.get("team") or None
        hits = selectors.packet_text_search(viewer=request.user, text=text, team_name=team_name, limit=limit)
        results = [
            {
                "id": hit.packet.id,
                "created_at": hit.packet.created_at,
                "goal": hit.packet.goal,
                "team_name": hit.team,
                "snippet": hit.snippet_text,
                "score": hit.score,
            }
            for hit in hits
        ]
        return Response(SearchResultsSerializer({"results": results}).data)
