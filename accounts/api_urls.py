"""Wire routes about people: OAuth's device flow at exactly the paths the `ltm` client uses (no
trailing slash: a POST cannot follow a redirect), and the claim link."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("oauth/authorize_device", api.DeviceAuthorizationView.as_view(), name="oauth_authorize_device"),
    path("oauth/token", api.TokenView.as_view(), name="oauth_token"),
    path("v1/account/claim-link", api.ClaimLinkApi.as_view(), name="api-claim-link"),
]
