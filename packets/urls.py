from django.urls import path

from packets import api

urlpatterns = [
    path("packets", api.PacketCollection.as_view(), name="api-packets"),
    path("packets/<str:packet_id>", api.PacketItem.as_view(), name="api-packet"),
    path("packets/<str:packet_id>/publish", api.PacketPublish.as_view(), name="api-packet-publish"),
]
