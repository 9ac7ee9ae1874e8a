"""Dashboard pages for packets, mounted at the site root ("" is the home page)."""

from django.urls import path

from packets import views

# A packet id is opaque and may hold a "/" (see packets/urls.py), so ids are `path` segments and
# the action routes come before the bare detail route.
urlpatterns = [
    path("", views.home, name="home"),
    path("packets/<path:packet_id>.json", views.packet_download, name="packet-download"),
    path("packets/<path:packet_id>/publish", views.packet_publish, name="packet-publish"),
    path("packets/<path:packet_id>/unpublish", views.packet_unpublish, name="packet-unpublish"),
    path("packets/<path:packet_id>/delete", views.packet_delete, name="packet-delete"),
    path("packets/<path:packet_id>/move", views.packet_move, name="packet-move"),
    path("packets/<path:packet_id>", views.packet_detail, name="packet-detail"),
]
