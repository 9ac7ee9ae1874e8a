"""Dashboard pages of the signed-in person (mounted at the site root)."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("tokens", views.tokens, name="tokens"),
    path("tokens/<str:token_id>/revoke", views.token_revoke, name="token-revoke"),
    path("devices/<str:device_id>/revoke", views.device_revoke, name="device-revoke"),
    path("account", views.account, name="account"),
    path("account/delete", views.account_delete, name="account-delete"),
]
