"""Wire routes of packets.

A packet id is opaque (the schema only bounds its length), so it may hold a "/" that the client
percent-encodes and the server decodes: `path` takes the id whole. The publish, shares,
findings and thread routes come first so ".../publish", ".../shares", ".../findings" and
".../thread" are never read as part of an id."""

from django.urls import path

from core.lean import LeanRoute
from packets import api
from packets.services import PACKET_ID

urlpatterns = [
    path("v1/packets", api.PacketCollection.as_view(), name="api-packets"),
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
    path("v1/packets/<path:packet_id>", api.PacketItem.as_view(), name="api-packet"),
]

# The calls the lean lane (core.lean, hub/wsgi.py) answers without URL resolution or DRF's
# dispatch: the hottest three, each with the view its URL resolves to above. A pull's id must be
# one the hub's URLs can always address (no "/" to decode, so never one of the routes above it).
lean_routes = [
    LeanRoute("POST", "/v1/packets", api.PacketCollection, api.packet_push_answer),
    LeanRoute("GET", "/v1/packets", api.PacketCollection, api.packets_list_answer),
    LeanRoute("GET", f"/v1/packets/(?P<packet_id>{PACKET_ID.pattern})", api.PacketItem, api.packet_pull_answer),
]
