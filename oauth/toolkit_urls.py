"""OAuth for clients that sign themselves in, under the toolkit's URL names (namespace
`oauth2_provider`: its metadata views find the endpoints by these names): authorization server
metadata (RFC 8414), protected resource metadata (RFC 9728) for the hub's MCP endpoint, the
consent page, the token endpoint (the same view as oauth.api_urls' /oauth/token) and client
registration (RFC 7591/7592), and the OpenID Connect provider's discovery document, keys and
userinfo (answering 404 while the provider is off: no LTM_OIDC_RSA_KEY). No trailing slashes,
like the device flow's paths."""

from django.urls import path
from oauth2_provider import views as dot_views

from oauth import api, client_views, metadata

app_name = "oauth2_provider"

urlpatterns = [
    path(
        ".well-known/oauth-authorization-server",
        metadata.ServerMetadataView.as_view(),
        name="oauth-server-metadata",
    ),
    # The resource is derived from the path: the hub as a whole, and /mcp, the one resource that
    # takes tokens from clients that register themselves.
    path(
        ".well-known/oauth-protected-resource",
        client_views.ResourceMetadataView.as_view(),
        name="oauth-resource-metadata",
    ),
    path(
        ".well-known/oauth-protected-resource/mcp",
        client_views.ResourceMetadataView.as_view(),
        name="oauth-resource-metadata-mcp",
    ),
    path("oauth/authorize", client_views.ConsentView.as_view(), name="authorize"),
    path("oauth/token", api.TokenView.as_view(), name="token"),
    path("oauth/register", client_views.ClientRegistrationView.as_view(), name="dcr-register"),
    path(
        "oauth/register/<str:client_id>", client_views.ClientConfigurationView.as_view(), name="dcr-register-management"
    ),
    path(
        ".well-known/openid-configuration",
        dot_views.ConnectDiscoveryInfoView.as_view(),
        name="oidc-connect-discovery-info",
    ),
    path("oauth/jwks", dot_views.JwksInfoView.as_view(), name="jwks-info"),
    path("oauth/userinfo", dot_views.UserInfoView.as_view(), name="user-info"),
]
