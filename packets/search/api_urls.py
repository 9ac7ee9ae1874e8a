from django.urls import path

from packets.search import api

urlpatterns = [
    path("v1/search", api.PacketSearch.as_view(), name="api-search"),
    path("v1/packets/<path:packet_id>/related", api.PacketRelated.as_view(), name="api-packet-related"),
]
