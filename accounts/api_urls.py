"""Wire routes about people: OAuth's device flow at exactly the paths the `ltm` client uses (no
trailing slash: a POST cannot follow a redirect), the claim link and the bearer's own account."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("oauth/authorize_device", api.DeviceAuthorizationView.as_view(), name="oauth_authorize_device"),
    path("oauth/token", api.TokenView.as_view(), name="oauth_token"),
    path("oauth/device/cancel", api.DeviceCancelView.as_view(), name="oauth_device_cancel"),
    path("v1/account/claim-link", api.ClaimLinkApi.as_view(), name="api-claim-link"),
    path("v1/me", api.MeApi.as_view(), name="api-me"),
]
