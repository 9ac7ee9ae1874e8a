"""The wire API of search: GET /v1/search."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.views import APIView

from core.api import error_responses, json_answer
from core.params import query
from packets.search.selectors import related_packets, search_packets
from packets.search.serializers import RelatedQuerySerializer, SearchQuerySerializer, SearchResultsSerializer


@extend_schema_view(
    get=extend_schema(
        summary="Search packets, best first",
        description=(
            "Finds packets by their words, by their meaning, or both (`mode`, default hybrid). By "
            "words: full-text search over every text field a person writes in a packet (goal, next "
            "step, success criteria, constraints, decisions, attempts, methods, open questions, tags "
            "and project name); words match in any order and case, with English stemming; "
            '"quoted phrases", -word to exclude and OR work as in web search. By meaning: the '
            "packets whose goal, decisions, attempts, open questions, next step and tags are nearest "
            "in meaning to the text, whatever words they use. Hybrid fuses the two rankings "
            "(reciprocal rank fusion); each result's `matched` says which found it. A packet id, or "
            "10 or more characters that start one, puts that packet first."
        ),
        parameters=[SearchQuerySerializer],
        responses={200: SearchResultsSerializer, **error_responses(400, 404)},
    ),
)
class PacketSearch(APIView):
    def get(self, request):
        asked = query(SearchQuerySerializer, request)
        hits = search_packets(
            viewer=request.user, text=asked["q"], team_name=asked["team"], limit=asked["limit"], mode=asked["mode"]
        )
        # SearchResultsSerializer describes this answer; Hit.result() writes each result as the MCP
        # tools list them, and the answer is written directly, as the list's.
        return json_answer({"results": [hit.result() for hit in hits]})


@extend_schema_view(
    get=extend_schema(
        summary="The packets nearest in meaning to one, best first",
        description=(
            "The packets the caller may read (their own, their teams', those shared with them) "
            "nearest in meaning to the packet `id`, best first, the packet itself left out, in the "
            'search result shape (each `matched` is ["semantic"]). A packet the caller may not '
            "read is a 404, as for a pull. A hub with LTM_SEMANTIC=off answers 400, naming the setting."
        ),
        parameters=[RelatedQuerySerializer],
        responses={200: SearchResultsSerializer, **error_responses(400, 404, 409)},
    ),
)
class PacketRelated(APIView):
    def get(self, request, packet_id):
        asked = query(RelatedQuerySerializer, request)
        hits = related_packets(viewer=request.user, packet_id=packet_id, limit=asked["limit"])
        return json_answer({"results": [hit.result() for hit in hits]})
