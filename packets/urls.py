"""Pages of packets, the subjects' included: the dashboard's packet pages ("" is the home page),
and the pages of publishing, sharing, the secret scan and export.

A packet id is opaque and may hold a "/" (see packets/api_urls.py), so ids are `path` segments and
every route under a packet comes before the bare detail route."""

from django.urls import include, path

from packets.export import urls as export
from packets.publishing import urls as publishing
from packets.scan import urls as scan
from packets.sharing import urls as sharing
from packets.views import listing, packet, thread

urlpatterns = [
    *(path("", include(subject)) for subject in (publishing, export, sharing, scan)),
    path("", listing.home, name="home"),
    path("packets/<path:packet_id>.json", packet.packet_download, name="packet-download"),
    path("packets/<path:packet_id>/delete", packet.packet_delete, name="packet-delete"),
    path("packets/<path:packet_id>/thread", thread.packet_thread, name="packet-thread"),
    path("packets/<path:packet_id>/move", packet.packet_move, name="packet-move"),
    path("packets/<path:packet_id>", packet.packet_detail, name="packet-detail"),
]
