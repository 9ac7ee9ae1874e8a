"""Wire routes of packets, the subjects' included.

A packet id is opaque (the schema only bounds its length), so it may hold a "/" that the client
percent-encodes and the server decodes: `path` takes the id whole. Every route under a packet
(".../thread", and the subjects' ".../publish", ".../shares", ".../findings") comes before the
packet's own, so that none is read as part of an id. The subjects' routes are listed here as they
are, not included: an include that does not match is a raised and caught Resolver404 on every
pull, which comes after them all."""

from django.urls import path

from packets import api
from packets.export import api_urls as export
from packets.publishing import api_urls as publishing
from packets.scan import api_urls as scan
from packets.search import api_urls as search
from packets.sharing import api_urls as sharing

urlpatterns = [
    path("v1/packets", api.packet_collection, name="api-packets"),
    path("v1/packets/<path:packet_id>/thread", api.PacketThread.as_view(), name="api-packet-thread"),
    *(route for subject in (export, search, publishing, sharing, scan) for route in subject.urlpatterns),
    path("v1/packets/<path:packet_id>", api.packet_item, name="api-packet"),
]
