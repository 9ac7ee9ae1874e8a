"""allauth's OpenID Connect provider, with the hub's adapter (SOCIALACCOUNT_PROVIDERS'
"provider_class", allauth's way to replace a provider's class): its URLs are this package's."""

from allauth.socialaccount.providers.openid_connect.provider import OpenIDConnectProvider

from accounts.oidc.views import HubOIDCAdapter


class HubOIDCProvider(OpenIDConnectProvider):
    package = "accounts.oidc"
    oauth2_adapter_class = HubOIDCAdapter
