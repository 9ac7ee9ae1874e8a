"""Pages of the OAuth server: the device flow's pages, and the dashboard's Tokens & devices page
with its device and connected-app actions."""

from django.urls import path

from oauth import views

urlpatterns = [
    path("device", views.device_enter, name="device"),
    path("device/decide", views.device_decide, name="device_decide"),
    path("device/done/<str:outcome>", views.device_done, name="device_done"),
    path("tokens", views.tokens, name="tokens"),
    path("devices/<str:device_id>/revoke", views.device_revoke, name="device-revoke"),
    path("devices/<str:device_id>/rename", views.device_rename, name="device-rename"),
    path("connected-apps/<str:app_id>/revoke", views.connected_app_revoke, name="connected-app-revoke"),
]
