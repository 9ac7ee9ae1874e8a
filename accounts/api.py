"""The endpoints clients call about people: OAuth's device flow (/oauth, section 6 of the
protocol) and the claim link of an account made by `ltm join` (/v1/account/claim-link)."""

import json

from allauth.core import ratelimit
from django.db import transaction
from django.http import JsonResponse
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema, extend_schema_view
from oauth2_provider import views as dot_views
from oauth2_provider.models import get_application_model
from oauth2_provider.scopes import get_scopes_backend
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.device_flow import ALREADY_REDEEMED
from accounts.oauth import FormTolerantOAuthLibCore, HubDeviceServer
from accounts.serializers import ClaimLinkSerializer
from core.api import error_responses, http_status
from core.errors import HubError
from core.links import external_url

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

# The two kinds of bearer token, as OpenAPI security schemes (one header, two origins).
BEARER_SCHEMES = {
    "apiToken": "a personal API token issued by the hub (`ltm_...`, from the dashboard or `manage.py ltm_token`)",
    "oauthToken": "an OAuth access token from the device flow (POST /oauth/authorize_device, then /oauth/token)",
}
# Either token, or none at all (the invite accept).
OPTIONAL_BEARER = [{name: []} for name in BEARER_SCHEMES] + [{}]


class BearerAuthenticationScheme(OpenApiAuthenticationExtension):
    """accounts.authentication.BearerAuthentication in the OpenAPI description: either token."""

    target_class = "accounts.authentication.BearerAuthentication"
    name = list(BEARER_SCHEMES)

    def get_security_definition(self, auto_schema):
        return [{"type": "http", "scheme": "bearer", "description": text} for text in BEARER_SCHEMES.values()]

    def get_security_requirement(self, auto_schema):
        return [{name: []} for name in BEARER_SCHEMES]


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
        # Each request makes a grant row that lives until the hourly purge: a limit per client
        # address (ACCOUNT_RATE_LIMITS["device_authorization"], in the shared cache). The client
        # prints error_description of any answer that is not a 200.
        if not ratelimit.consume(request, action="device_authorization"):
            response = _oauth_error(
                "slow_down", "too many sign-in requests from this address; wait a minute and try again", 429
            )
            response["Retry-After"] = "60"
            return response
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
    """POST /oauth/token; the device grant's polling answers come from
    accounts.services.device_grant_poll."""

    oauthlib_backend_class = FormTolerantOAuthLibCore

    def post(self, request, *args, **kwargs):
        if request.POST.get("grant_type") == DEVICE_GRANT_TYPE:
            return self.device_flow_token_response(request, request.POST.get("device_code", ""))
        return super().post(request, *args, **kwargs)

    def device_flow_token_response(self, request, device_code, *args, **kwargs):
        try:
            grant = services.device_grant_poll(device_code=device_code, client_id=request.POST.get("client_id", ""))
        except HubError as error:
            return _oauth_error(error.code, error.message, http_status(error))
        with transaction.atomic():
            if not services.device_grant_redeem(grant=grant):
                return _oauth_error("invalid_grant", ALREADY_REDEEMED)
            _url, headers, body, status = self.create_token_response(request)
            if status != 200:
                transaction.set_rollback(True)  # the grant stays redeemable
        response = JsonResponse(json.loads(body), status=status, headers=NO_STORE)
        for key, value in headers.items():
            response[key] = value
        return response


@extend_schema_view(
    post=extend_schema(
        summary="A link to give this account an email and a password (hub extension)",
        description="For an account made by `ltm join`, which has neither; 409 once it has a password.",
        request=None,
        responses={201: ClaimLinkSerializer, **error_responses(409)},
    ),
)
class ClaimLinkApi(APIView):
    """POST /v1/account/claim-link (bearer) → 201 {"url", "expires_at"}."""

    def post(self, request):
        code, expires_at = services.claim_code_create(actor=request.user)
        url = external_url(request, f"/claim/{code}")
        return Response(ClaimLinkSerializer({"url": url, "expires_at": expires_at}).data, status=201)
