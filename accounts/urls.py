"""Pages about people: the device flow's pages, claiming a web sign-in, and the dashboard's
tokens, devices and account."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("device", views.device_enter, name="device"),
    path("device/decide", views.device_decide, name="device_decide"),
    path("device/done/<str:outcome>", views.device_done, name="device_done"),
    path("claim/<str:code>", views.claim_page, name="account-claim"),
    path("tokens", views.tokens, name="tokens"),
    path("tokens/<str:token_id>/revoke", views.token_revoke, name="token-revoke"),
    path("devices/<str:device_id>/revoke", views.device_revoke, name="device-revoke"),
    path("devices/<str:device_id>/rename", views.device_rename, name="device-rename"),
    path("account", views.account, name="account"),
    path("account/delete", views.account_delete, name="account-delete"),
]
