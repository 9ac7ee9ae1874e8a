"""The wire API of export: GET /v1/export."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.views import APIView

from core.api import error_responses
from core.params import query
from packets.export.serializers import ExportQuerySerializer
from packets.export.stream import export_response
from packets.pages import team_named


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
        return export_response(
            viewer=request.user, team=team_named(request.user, asked["team"]), format=asked["format"]
        )
