"""Pages of sharing: the Share form's action on a packet's page, the inbox, what the viewer shared."""

from django.urls import path

from packets.sharing import views

urlpatterns = [
    path("packets/<path:packet_id>/share", views.packet_share, name="packet-share"),
    path("shared", views.shares_inbox, name="shares-inbox"),
    path("shared/by-me", views.shares_sent, name="shares-sent"),
    path("shared/<str:share_id>/dismiss", views.share_dismiss, name="share-dismiss"),
    path("shared/<str:share_id>/withdraw", views.share_withdraw, name="share-withdraw"),
]
