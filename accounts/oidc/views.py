"""The sign-in and callback views of allauth's OpenID Connect provider, with an adapter that
checks two things the library leaves out (README: where the hub goes around a library):

- the issuer: the discovery document must name as `issuer` the very URL the operator configured
  (OpenID Connect Discovery 1.0, section 4.3); allauth takes whatever the document says and then
  only compares the ID token with it, so a document that names another issuer is refused here;
- the signature: allauth does not check an ID token's signature when it fetched the token itself
  over TLS (which the specification permits); the hub checks it always, against the provider's
  published keys, so a token signed by anyone else is refused.

allauth's own views build the library's adapter by name, so these two views are its views with
this adapter (allauth.socialaccount.providers.openid_connect.views, unchanged otherwise).
"""

from allauth.account.internal.decorators import login_not_required
from allauth.socialaccount.helpers import render_authentication_error
from allauth.socialaccount.internal import jwtkit
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from allauth.socialaccount.providers.openid_connect.views import OpenIDConnectOAuth2Adapter
from django.http import Http404
from requests import RequestException


class HubOIDCAdapter(OpenIDConnectOAuth2Adapter):
    @property
    def openid_config(self):
        config = super().openid_config
        configured = self.get_provider().app.settings["server_url"].rstrip("/")
        named = str(config.get("issuer", "")).rstrip("/")
        if named != configured:
            raise OAuth2Error(f"the provider's discovery document names the issuer {named!r}, not {configured!r}")
        return config

    def _decode_id_token(self, app, id_token: str) -> dict:
        return jwtkit.verify_and_decode(
            credential=id_token,
            keys_url=self.openid_config["jwks_uri"],
            issuer=self.openid_config["issuer"],
            audience=app.client_id,
            lookup_kid=jwtkit.lookup_kid_jwk,
            verify_signature=True,
        )


@login_not_required
def login(request, provider_id):
    """The library's view; a provider that does not answer, or whose discovery document does not
    check out, is the refusal page rather than an error of the hub."""
    try:
        adapter = HubOIDCAdapter(request, provider_id)
        return OAuth2LoginView.adapter_view(adapter)(request)
    except SocialApp.DoesNotExist:
        raise Http404 from None
    except (OAuth2Error, RequestException) as exc:
        return render_authentication_error(request, adapter.get_provider(), exception=exc)


@login_not_required
def callback(request, provider_id):
    try:
        return OAuth2CallbackView.adapter_view(HubOIDCAdapter(request, provider_id))(request)
    except SocialApp.DoesNotExist:
        raise Http404 from None
