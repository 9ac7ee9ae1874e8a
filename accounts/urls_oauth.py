"""/oauth/: the OAuth 2.0 endpoints the `ltm` client calls, at exactly the paths it uses (no
trailing slash: a POST cannot follow a redirect)."""

from django.urls import path

from accounts import oauth

urlpatterns = [
    path("authorize_device", oauth.DeviceAuthorizationView.as_view(), name="oauth_authorize_device"),
    path("token", oauth.TokenView.as_view(), name="oauth_token"),
]
