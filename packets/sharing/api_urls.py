from django.urls import path

from packets.sharing import api

urlpatterns = [
    path("v1/packets/<path:packet_id>/shares", api.PacketShares.as_view(), name="api-packet-shares"),
    path("v1/shares", api.ShareCollection.as_view(), name="api-shares"),
    path("v1/shares/<str:share_id>", api.ShareItem.as_view(), name="api-share"),
]
