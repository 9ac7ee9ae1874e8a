"""django-oauth-toolkit, shaped to the device flow the `ltm` client runs (protocol section 6).

We use the toolkit's endpoints, models, token issuing and hashed token storage. Where it does not
do what the contract needs, we go around it, in this module and in the two views of
oauth.api, and only there:

- `POST /oauth/authorize_device` (oauth.api.DeviceAuthorizationView): the toolkit's view and
  oauthlib's endpoint, with our server class for `expires_in` 600 (the toolkit's server always
  says 1800) and user codes from the RFC 8628 section 6.1 alphabet (the toolkit's `0-9A-V` has
  vowels and look-alikes); the verification URIs are made absolute with
  `core.links.external_url` (the toolkit only knows a fixed string); a scope outside
  `read write` is refused at once rather than at the first poll; an unknown client_id is
  `invalid_client` (401) as RFC 6749 section 5.2 says, not oauthlib's `invalid_request`;
  `application/x-www-form-urlencoded; charset=utf-8` is accepted like the bare type (oauthlib
  compares the header exactly).
- `POST /oauth/token` with the device grant (oauth.api.TokenView): the toolkit answers a
  non-standard 404 `device_not_found`, has no `slow_down`, keeps answering
  `authorization_pending` past expiry and issues a new token on every poll after approval.
  `oauth.services.device_grant_poll` decides the RFC 8628 section 3.5 answer instead, and the
  grant is claimed (one conditional UPDATE) before the toolkit issues the one token, in the same
  transaction.
- Tokens (HubOAuth2Server): no refresh token on the device grant (the client never refreshes),
  `ltm-cli` tokens live LTM_CLI_TOKEN_LIFETIME_DAYS, other clients keep the toolkit's lifetime.
  Access tokens carry the `ltm_` prefix (never a leading dash; recognisable by secret scanners).
- The verification pages (/device) are ours (oauth.views): the toolkit's match codes
  exactly, do not show the code, and have no rate limit.
- OpenID Connect (the hub as a provider): the toolkit's, with the claims the hub knows of a person
  (HubOAuth2Validator.get_additional_claims); the server class is oauthlib's OpenID Connect
  server, which also serves plain OAuth 2.
- A token remembers whether the session that approved it had signed in with a second factor
  (oauth.models.SecondFactorToken): from the consent page's grant to the token issued for it,
  and on to the tokens each refresh issues.

Redirect URIs and the clients that sign themselves in have their own modules
(oauth.redirect_uris, oauth.clients).
"""

from allauth.account.models import EmailAddress
from oauth2_provider.oauth2_backends import OAuthLibCore
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2 import DeviceAuthorizationEndpoint
from oauthlib.openid import Server

from accounts.services import new_token_plaintext
from oauth import device_flow, services
from oauth.models import SELF_REGISTERED_SOURCES

FORM_TYPE = "application/x-www-form-urlencoded"
# The resource (RFC 8707) that clients signing themselves in are for: the hub's MCP endpoint.
MCP_PATH = "/mcp"


# The hub's own clients (`ltm-cli`, made by a migration, or one made in the admin) and the clients
# that register themselves (Dynamic Client Registration, Client ID Metadata Documents). Only the
# hub's own use the device grant and hold tokens for /v1; a client that registered itself holds
# tokens for /mcp only, and may not take the name of one of the hub's own.


def is_self_registered(application) -> bool:
    return application is not None and application.registration_source in SELF_REGISTERED_SOURCES


def access_token_generator(request, refresh_token=False) -> str:
    """OAUTH2_PROVIDER["ACCESS_TOKEN_GENERATOR"]: the same shape as a personal API token."""
    return new_token_plaintext()


def _token_lifetime_seconds(request) -> int:
    client_id = getattr(request.client, "client_id", None) or request.client_id
    if client_id == device_flow.CLI_CLIENT_ID:
        return int(device_flow.cli_token_lifetime().total_seconds())
    return oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS


class HubOAuth2Server(Server):
    """OAUTH2_PROVIDER["OAUTH2_SERVER_CLASS"] (and OIDC_SERVER_CLASS): oauthlib's server, with the
    token policy above."""

    def __init__(self, request_validator, *args, **kwargs):
        # The device grant's table keeps the digest of each device_code: the toolkit's step
        # before it issues a token must find the grant by the digest of what the client sends.
        kwargs["pre_token"] = [device_flow.set_user_of_grant]
        kwargs["token_expires_in"] = _token_lifetime_seconds
        super().__init__(request_validator, *args, **kwargs)
        self.device_code_grant.refresh_token = False


class HubOAuth2Validator(OAuth2Validator):
    """OAUTH2_PROVIDER["OAUTH2_VALIDATOR_CLASS"]: the toolkit's validator, and a replayed
    authorization code revokes what its first exchange issued (RFC 6749 section 4.1.2: the
    toolkit refuses the replay but leaves those tokens working)."""

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        super().save_authorization_code(client_id, code, request, *args, **kwargs)
        if getattr(request, "second_factor", False):  # the consent page's credentials say it
            services.second_factor_grant_record(code=code["code"], application=request.client)

    def save_bearer_token(self, token, request, *args, **kwargs):
        # Read before the toolkit rotates a refresh token, which deletes the access token it had.
        second_factor = services.second_factor_of_request(request)
        super().save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type == "authorization_code":
            services.authorization_code_spend(
                code=request.code,
                application=request.client,
                access_token=token["access_token"],
                refresh_token=token.get("refresh_token"),
            )
        if second_factor:
            services.second_factor_token_record(access_token=token["access_token"])

    def get_additional_claims(self, request):
        """What an ID token and userinfo say of the person, by scope: `profile` their username and
        display name, `email` their primary address and whether it is verified (a relying party
        matches accounts by verified addresses only)."""
        user = request.user
        address = EmailAddress.objects.filter(user=user, primary=True).first()
        return {
            "preferred_username": user.username,
            "name": user.display_name,
            "email": address.email if address else user.email,
            "email_verified": bool(address and address.verified),
        }

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        """Only the grants the metadata advertises: an application made with another one (say
        client_credentials, whose token acts for no person) gets no token. The device grant is
        the hub's own clients': a client that registered itself with it (before registration
        refused that) gets no token, which would reach /v1."""
        if grant_type not in oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED:
            return False
        if grant_type == device_flow.DEVICE_GRANT_TYPE and is_self_registered(client):
            return False
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if super().validate_code(client_id, code, client, request, *args, **kwargs):
            return True
        services.authorization_code_replayed(code=code, application=client)
        return False


class HubDeviceServer(DeviceAuthorizationEndpoint):
    """The device-authorization endpoint with our code lifetime and user codes. oauthlib's
    DeviceApplicationServer (the toolkit's server class) passes no `expires_in` to this endpoint,
    so the endpoint is built here with its public arguments; the toolkit's other server kwargs
    (token lifetimes and generators, the toolkit's user codes and interval) are not for it."""

    def __init__(self, request_validator, *, verification_uri, verification_uri_complete=None, **server_kwargs):
        super().__init__(
            request_validator,
            verification_uri=verification_uri,
            expires_in=int(device_flow.DEVICE_CODE_LIFETIME.total_seconds()),
            interval=device_flow.POLL_INTERVAL,
            verification_uri_complete=verification_uri_complete,
            user_code_generator=device_flow.new_user_code,
        )


class FormTolerantOAuthLibCore(OAuthLibCore):
    """Tells oauthlib the bare form type when the request says `...; charset=utf-8`, and an empty
    one when it says none (oauthlib's device endpoint reads the header unguarded, a KeyError)."""

    def extract_headers(self, request):
        headers = super().extract_headers(request)
        content_type = headers.get("Content-Type", "")
        if content_type.split(";")[0].strip().lower() == FORM_TYPE:
            content_type = FORM_TYPE
        headers["Content-Type"] = content_type
        return headers
