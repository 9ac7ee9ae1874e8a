"""Wire routes of packets.

A packet id is opaque (the schema only bounds its length), so it may hold a "/" that the client
percent-encodes and the server decodes: `path` takes the id whole. The publish and thread routes
come first so ".../publish" and ".../thread" are never read as part of an id."""

from django.urls import path

from packets import api

urlpatterns = [
    path("v1/packets", api.PacketCollection.as_view(), name="api-packets"),
    path("v1/export", api.Export.as_view(), name="api-export"),
    path("v1/packets/<path:packet_id>/thread", api.PacketThread.as_view(), name="api-packet-thread"),
    path("v1/search", api.PacketSearch.as_view(), name="api-search"),
    path("v1/packets/<path:packet_id>/publish", api.PacketPublish.as_view(), name="api-packet-publish"),
    path("v1/packets/<path:packet_id>", api.PacketItem.as_view(), name="api-packet"),
]
