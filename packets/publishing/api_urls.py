from django.urls import path

from packets.publishing import api

urlpatterns = [
    path("v1/packets/<path:packet_id>/publish", api.PacketPublish.as_view(), name="api-packet-publish"),
]
