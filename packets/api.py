"""The wire API of the packet: POST/GET /v1/packets, GET/DELETE /v1/packets/{id} and
GET /v1/packets/{id}/thread. Each subject's endpoints are in its subpackage's api (publishing,
sharing, scan, search, export)."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, answered_by_the_url_view, by_method, error_responses, json_answer, no_content_method
from core.errors import BadRequest, LengthRequired
from core.params import query
from core.parsers import read_json_body
from core.timestamps import rfc3339
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, validate_packet
from oauth.authentication import bearer_view
from packets import selectors, services
from packets.pages import team_named
from packets.publishing.selectors import public_url
from packets.serializers import (
    ListQuerySerializer,
    PacketListSerializer,
    PacketSerializer,
    PushedSerializer,
    PushQuerySerializer,
    ThreadSerializer,
)


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
    team = team_named(request.user, query(PushQuerySerializer, request)["team"])
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
        response["X-LTM-Public-URL"] = public_url(request, packet)
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
