"""Pages of publishing: the public pages (slugs are URL-safe base64, [-A-Za-z0-9_]) and the
dashboard's Publish and Unpublish (a packet id is a `path`: see packets/api_urls.py)."""

from django.urls import path

from packets.publishing import views

urlpatterns = [
    path("p/<slug:slug>.json", views.public_packet_json, name="packet-public-json"),
    path("p/<slug:slug>", views.public_packet_page, name="packet-public"),
    path("packets/<path:packet_id>/publish", views.packet_publish, name="packet-publish"),
    path("packets/<path:packet_id>/unpublish", views.packet_unpublish, name="packet-unpublish"),
]
