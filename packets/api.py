"""The wire API for packets: POST/GET /v1/packets, GET/DELETE /v1/packets/{id},
POST/DELETE /v1/packets/{id}/publish, GET /v1/packets/{id}/thread, GET /v1/export, GET /v1/search,
and shares: POST /v1/packets/{id}/shares, GET /v1/shares and DELETE /v1/shares/{id}."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import (
    NO_CONTENT,
    answered_by_the_url_view,
    by_method,
    error_responses,
    json_answer,
    no_content_method,
)
from core.errors import BadRequest, LengthRequired
from core.params import body, query
from core.parsers import read_json_body
from core.timestamps import rfc3339
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, validate_packet
from oauth.authentication import bearer_view
from packets import findings, selectors, services, shares
from packets.export import export_response
from packets.serializers import (
    ExportQuerySerializer,
    FindingClearRequestSerializer,
    FindingListSerializer,
    ListQuerySerializer,
    PacketListSerializer,
    PacketSerializer,
    PublishedSerializer,
    PushedSerializer,
    PushQuerySerializer,
    ReviewQueueQuerySerializer,
    ReviewQueueSerializer,
    SearchQuerySerializer,
    SearchResultsSerializer,
    ShareCreatedSerializer,
    ShareCreateRequestSerializer,
    ShareListSerializer,
    SharesQuerySerializer,
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


# The three hottest calls, push, list and pull, are plain Django views, without DRF's dispatch
# (which cost them about as much as their own work): bearer_view checks what DRF would, and
# by_method puts each beside the DRF view that declares it for the OpenAPI description and answers
# the URL's other methods (packet_collection and packet_item, below).


@bearer_view
def push_view(request) -> HttpResponse:
    team = _team(request.user, query(PushQuerySerializer, request)["team"])
    packet = _read_packet(request)
    stored = services.packet_push(actor=request.user, packet=packet, team=team)
    # PushedSerializer describes this answer; written directly, like the list's.
    if stored.findings:
        return json_answer({"id": stored.id, "findings": stored.findings}, status=201)
    return json_answer({"id": stored.id}, status=201)


@bearer_view
def list_view(request) -> HttpResponse:
    asked = query(ListQuerySerializer, request)
    packets = selectors.packet_list(viewer=request.user, team_name=asked["team"], limit=asked["limit"])
    # PacketListSerializer describes this answer; it is written directly, the hottest call's
    # rows are too cheap to go through a serializer each.
    return json_answer({"packets": [packet.wire() for packet in packets]})


@bearer_view
def pull_view(request, packet_id: str) -> HttpResponse:
    packet = services.packet_read(viewer=request.user, packet_id=packet_id)
    response = HttpResponse(packet.body, content_type="application/json")
    # Server facts travel in headers: the body must stay exactly the packet.
    if packet.public_slug:
        response["X-LTM-Published-At"] = rfc3339(packet.published_at)
        response["X-LTM-Public-URL"] = selectors.public_url(request, packet)
    return response


@extend_schema_view(
    post=extend_schema(
        summary="Push a packet",
        description=(
            "The body is the packet (at most 32 KiB). Re-pushing an id the caller owns replaces it. "
            "The hub's secret scan (hub extension) may refuse it (422 with `findings`) or store it "
            "quarantined (201 with `findings`)."
        ),
        parameters=[PushQuerySerializer],
        request={"application/json": PacketSerializer},
        responses={201: PushedSerializer, **error_responses(400, 404, 409, 411, 422)},
    ),
    get=extend_schema(
        summary="List packets, newest first",
        operation_id="packets_list",
        parameters=[ListQuerySerializer],
        responses={200: PacketListSerializer, **error_responses(404)},
    ),
)
class PacketCollection(APIView):
    post = answered_by_the_url_view()
    get = answered_by_the_url_view()


packet_collection = by_method(PacketCollection, GET=list_view, POST=push_view)


@extend_schema_view(
    get=extend_schema(
        summary="Get a packet",
        operation_id="packets_get",
        description=(
            "The body is exactly the packet as pushed (canonical JSON); server facts travel in headers. "
            "A packet the hub's secret scan holds back from the caller (hub extension) is a 409 with "
            "`held: true` and its `findings`: only its creator and its team's owner and admins read it "
            "until the findings are fixed or cleared."
        ),
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
        responses={200: PacketSerializer, **error_responses(404, 409)},
    ),
    delete=extend_schema(summary="Delete a packet", responses={204: NO_CONTENT, **error_responses(404)}),
)
class PacketItem(APIView):
    get = answered_by_the_url_view()
    delete = no_content_method(services.packet_delete)


packet_item = by_method(PacketItem, GET=pull_view)


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
            "Every packet the caller may read (or one team's), streamed, but those the hub's secret scan "
            "holds back from the caller. `jsonl`: one packet a line, the "
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


# Shares (a hub extension).


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
            "Attempts per sender are limited, an unknown username's too (429 with Retry-After)."
        ),
        request={"application/json": ShareCreateRequestSerializer},
        responses={
            201: ShareCreatedSerializer,
            200: ShareCreatedSerializer,
            **error_responses(400, 403, 404, 429),
        },
    ),
)
class PacketShares(APIView):
    def post(self, request, packet_id):
        asked = body(ShareCreateRequestSerializer, request)
        share, created = shares.share_create(
            actor=request.user,
            packet_id=packet_id,
            to=asked["to"],
            note=asked["note"],
            link=shares.packet_page_link(request),
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
        listed = shares.shares_list(viewer=request.user, direction=asked["direction"], limit=asked["limit"])
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
    delete = no_content_method(shares.share_delete)


# The hub's secret scan (a hub extension).


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
        team = _team(request.user, query(ReviewQueueQuerySerializer, request)["team"])
        queued = [
            {"packet": packet, **finding}
            for packet in findings.review_queue(viewer=request.user, team=team)
            for finding in packet.findings
        ]
        return Response(ReviewQueueSerializer({"findings": queued}).data)
