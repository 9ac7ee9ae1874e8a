"""django-oauth-toolkit, shaped to the device flow the `ltm` client runs (protocol section 6).

We use the toolkit's endpoints, models, token issuing and hashed token storage. Where it does not
do what the contract needs, we go around it here, and only there:

- `POST /oauth/authorize_device` (DeviceAuthorizationView): the toolkit's view and oauthlib's
  endpoint, with our server class for `expires_in` 600 (the toolkit's server always says 1800)
  and user codes from the RFC 8628 section 6.1 alphabet (the toolkit's `0-9A-V` has vowels and
  look-alikes); the verification URIs are made absolute with `core.links.external_url` (the
  toolkit only knows a fixed string); a scope outside `read write` is refused at once rather
  than at the first poll; an unknown client_id is `invalid_client` (401) as RFC 6749 section
  5.2 says, not oauthlib's `invalid_request`; `application/x-www-form-urlencoded;
  charset=utf-8` is accepted like the bare type (oauthlib compares the header exactly).
- `POST /oauth/token` with the device grant (TokenView): the toolkit answers a non-standard 404
  `device_not_found`, has no `slow_down`, keeps answering `authorization_pending` past expiry
  and issues a new token on every poll after approval. `accounts.device.device_poll_check`
  decides the RFC 8628 section 3.5 answer instead, and the grant is claimed (one conditional
  UPDATE) before the toolkit issues the one token, in the same transaction.
- Tokens (HubOAuth2Server): no refresh token on the device grant (the client never refreshes),
  `ltm-cli` tokens live LTM_CLI_TOKEN_LIFETIME_DAYS, other clients keep the toolkit's lifetime.
  Access tokens carry the `ltm_` prefix (never a leading dash; recognisable by secret scanners).
- The verification pages (/device) are ours (accounts.device_views): the toolkit's match codes
  exactly, do not show the code, and have no rate limit.
"""

import json

from django.db import transaction
from django.http import JsonResponse
from oauth2_provider import views as dot_views
from oauth2_provider.models import get_application_model
from oauth2_provider.oauth2_backends import OAuthLibCore
from oauth2_provider.scopes import get_scopes_backend
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2 import DeviceApplicationServer, Server

from accounts import device
from accounts.services import new_token_plaintext
from core.links import external_url

FORM_TYPE = "application/x-www-form-urlencoded"
DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def access_token_generator(request, refresh_token=False) -> str:
    """OAUTH2_PROVIDER["ACCESS_TOKEN_GENERATOR"]: the same shape as a personal API token."""
    return new_token_plaintext()


def _token_lifetime_seconds(request) -> int:
    client_id = getattr(request.client, "client_id", None) or request.client_id
    if client_id == device.CLI_CLIENT_ID:
        return int(device.cli_token_lifetime().total_seconds())
    return oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS


class HubOAuth2Server(Server):
    """OAUTH2_PROVIDER["OAUTH2_SERVER_CLASS"]: oauthlib's server, with the token policy above."""

    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        self.device_code_grant.refresh_token = False
        self.bearer.expires_in = _token_lifetime_seconds


class HubDeviceServer(DeviceApplicationServer):
    """The device-authorization endpoint with our code lifetime and user codes."""

    def __init__(self, request_validator, **kwargs):
        kwargs["user_code_generator"] = device.new_user_code
        super().__init__(request_validator, **kwargs)
        self._expires_in = int(device.DEVICE_CODE_LIFETIME.total_seconds())
        self._interval = device.POLL_INTERVAL


class FormTolerantOAuthLibCore(OAuthLibCore):
    """Tells oauthlib the bare form type when the request says `...; charset=utf-8`."""

    def extract_headers(self, request):
        headers = super().extract_headers(request)
        content_type = headers.get("Content-Type", "")
        if content_type.split(";")[0].strip().lower() == FORM_TYPE:
            headers["Content-Type"] = FORM_TYPE
        return headers


def _oauth_error(error: str, description: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=status, headers=NO_STORE)


class PostOnly:
    """The client only POSTs to these endpoints; any other method gets an OAuth-style JSON error
    (Django's default 405 is an empty HTML page)."""

    def http_method_not_allowed(self, request, *args, **kwargs):
        response = _oauth_error("invalid_request", f"method {request.method} not allowed; use POST", 405)
        response["Allow"] = "POST"
        return response


class DeviceAuthorizationView(PostOnly, dot_views.DeviceAuthorizationView):
    """POST /oauth/authorize_device"""

    server_class = HubDeviceServer
    oauthlib_backend_class = FormTolerantOAuthLibCore

    def post(self, request, *args, **kwargs):
        client_id = request.POST.get("client_id", "")
        if client_id and not get_application_model().objects.filter(client_id=client_id).exists():
            # oauthlib says invalid_request here; RFC 6749 section 5.2 says invalid_client.
            return _oauth_error("invalid_client", "unknown client_id", status=401)
        requested = request.POST.get("scope", "").split()
        known = set(get_scopes_backend().get_all_scopes())
        if not set(requested) <= known:
            return _oauth_error("invalid_scope", f"scope must be among: {' '.join(sorted(known))}")
        response = super().post(request, *args, **kwargs)
        if response.status_code != 200:
            return response
        body = json.loads(response.content)
        for field in ("verification_uri", "verification_uri_complete"):
            if body.get(field, "").startswith("/"):
                body[field] = external_url(request, body[field])
        return JsonResponse(body, headers=NO_STORE)


class TokenView(PostOnly, dot_views.TokenView):
    """POST /oauth/token; the device grant's polling answers are decided by accounts.device."""

    oauthlib_backend_class = FormTolerantOAuthLibCore

    def post(self, request, *args, **kwargs):
        if request.POST.get("grant_type") == DEVICE_GRANT_TYPE:
            return self.device_flow_token_response(request, request.POST.get("device_code", ""))
        return super().post(request, *args, **kwargs)

    def device_flow_token_response(self, request, device_code, *args, **kwargs):
        try:
            grant = device.device_poll_check(
                device_code=device_code, client_id=request.POST.get("client_id", "")
            )
        except device.PollError as error:
            return _oauth_error(error.error, error.description, error.status)
        with transaction.atomic():
            if not device.device_grant_redeem(grant=grant):
                return _oauth_error("invalid_grant", device.ALREADY_REDEEMED)
            _url, headers, body, status = self.create_token_response(request)
            if status != 200:
                transaction.set_rollback(True)  # the grant stays redeemable
        response = JsonResponse(json.loads(body), status=status, headers=NO_STORE)
        for key, value in headers.items():
            response[key] = value
        return response
