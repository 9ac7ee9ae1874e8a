"""The wire API of publishing: POST/DELETE /v1/packets/{id}/publish."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import NO_CONTENT, error_responses, no_content_method
from packets.publishing import selectors, services
from packets.publishing.serializers import PublishedSerializer


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
