"""Pages of packets: the public pages of published packets and the dashboard's packet pages
("" is the home page), the shares and the secret scan's review queue.

Public slugs are URL-safe base64 ([-A-Za-z0-9_]). A packet id is opaque and may hold a "/" (see
packets/api_urls.py), so ids are `path` segments and the action routes come before the bare
detail route."""

from django.urls import path

from packets import views

urlpatterns = [
    path("p/<slug:slug>.json", views.public_packet_json, name="packet-public-json"),
    path("p/<slug:slug>", views.public_packet_page, name="packet-public"),
    path("", views.home, name="home"),
    path("export/<str:format>", views.packets_export, name="packets-export"),
    path("packets/<path:packet_id>.json", views.packet_download, name="packet-download"),
    path("packets/<path:packet_id>/publish", views.packet_publish, name="packet-publish"),
    path("packets/<path:packet_id>/unpublish", views.packet_unpublish, name="packet-unpublish"),
    path("packets/<path:packet_id>/delete", views.packet_delete, name="packet-delete"),
    path("packets/<path:packet_id>/thread", views.packet_thread, name="packet-thread"),
    path("packets/<path:packet_id>/move", views.packet_move, name="packet-move"),
    path("packets/<path:packet_id>/share", views.packet_share, name="packet-share"),
    path("packets/<path:packet_id>/findings/clear", views.packet_findings_clear, name="packet-findings-clear"),
    path("packets/<path:packet_id>", views.packet_detail, name="packet-detail"),
    path("findings", views.findings_page, name="findings"),
    path("shared", views.shares_inbox, name="shares-inbox"),
    path("shared/by-me", views.shares_sent, name="shares-sent"),
    path("shared/<str:share_id>/dismiss", views.share_dismiss, name="share-dismiss"),
    path("shared/<str:share_id>/withdraw", views.share_withdraw, name="share-withdraw"),
]
