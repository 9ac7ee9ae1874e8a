from django.urls import path

from packets.scan import api

urlpatterns = [
    path(
        "v1/packets/<path:packet_id>/findings/clear",
        api.PacketFindingsClear.as_view(),
        name="api-packet-findings-clear",
    ),
    path("v1/packets/<path:packet_id>/findings", api.PacketFindings.as_view(), name="api-packet-findings"),
    path("v1/findings", api.ReviewQueue.as_view(), name="api-findings"),
]
