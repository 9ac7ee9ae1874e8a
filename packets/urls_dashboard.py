"""Dashboard pages for packets, mounted at the site root ("" is the home page)."""

from django.urls import path

from packets import views

urlpatterns = [
    path("", views.home, name="home"),
    # Before "packets/<id>": a path segment may end in ".json".
    path("packets/<str:packet_id>.json", views.packet_download, name="packet-download"),
    path("packets/<str:packet_id>", views.packet_detail, name="packet-detail"),
    path("packets/<str:packet_id>/publish", views.packet_publish, name="packet-publish"),
    path("packets/<str:packet_id>/unpublish", views.packet_unpublish, name="packet-unpublish"),
    path("packets/<str:packet_id>/delete", views.packet_delete, name="packet-delete"),
    path("packets/<str:packet_id>/move", views.packet_move, name="packet-move"),
]
