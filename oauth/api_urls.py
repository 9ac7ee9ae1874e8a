"""Wire routes of the OAuth server: the device flow at exactly the paths the `ltm` client uses (no
trailing slash: a POST cannot follow a redirect), and the bearer's own account. The endpoints of
clients that sign themselves in are in oauth.toolkit_urls, under the toolkit's namespace."""

from django.urls import path

from oauth import api

urlpatterns = [
    path("oauth/authorize_device", api.DeviceAuthorizationView.as_view(), name="oauth_authorize_device"),
    path("oauth/token", api.TokenView.as_view(), name="oauth_token"),
    path("oauth/device/cancel", api.DeviceCancelView.as_view(), name="oauth_device_cancel"),
    path("v1/me", api.MeApi.as_view(), name="api-me"),
]
