"""Wire routes of packets.

A packet id is opaque (the schema only bounds its length), so it may hold a "/" that the client
percent-encodes and the server decodes: `path` takes the id whole. The publish, shares,
findings and thread routes come first so ".../publish", ".../shares", ".../findings" and
".../thread" are never read as part of an id."""

from django.urls import path

from packets import api

urlpatterns = [
    path("v1/packets", api.packet_collection, name="api-packets"),
    path("v1/export", api.Export.as_view(), name="api-export"),
    path("v1/packets/<path:packet_id>/thread", api.PacketThread.as_view(), name="api-packet-thread"),
    path("v1/search", api.PacketSearch.as_view(), name="api-search"),
    path("v1/packets/<path:packet_id>/publish", api.PacketPublish.as_view(), name="api-packet-publish"),
    path("v1/packets/<path:packet_id>/shares", api.PacketShares.as_view(), name="api-packet-shares"),
    path("v1/shares", api.ShareCollection.as_view(), name="api-shares"),
    path(
        "v1/packets/<path:packet_id>/findings/clear",
        api.PacketFindingsClear.as_view(),
        name="api-packet-findings-clear",
    ),
    path("v1/packets/<path:packet_id>/findings", api.PacketFindings.as_view(), name="api-packet-findings"),
    path("v1/findings", api.ReviewQueue.as_view(), name="api-findings"),
    path("v1/shares/<str:share_id>", api.ShareItem.as_view(), name="api-share"),
    path("v1/packets/<path:packet_id>", api.packet_item, name="api-packet"),
]
