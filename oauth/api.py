"""The OAuth server's endpoints for clients: the device flow (/oauth, section 6 of the protocol,
plus the hub's cancel endpoint), the token endpoint, and the bearer's own account and token
(/v1/me)."""

import json

from allauth.core import ratelimit
from django.db import transaction
from django.http import JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import extend_schema, extend_schema_view
from oauth2_provider import views as dot_views
from oauth2_provider.models import get_application_model
from oauth2_provider.scopes import get_scopes_backend
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services as account_services
from accounts.serializers import MeSerializer, MeUpdateSerializer
from core.api import http_status
from core.errors import BadRequest, HubError
from core.http import client_address
from core.links import external_url
from oauth import selectors, services
from oauth.device_flow import ALREADY_REDEEMED, DEVICE_GRANT_TYPE, DEVICE_NAME_FIELD
from oauth.server import FormTolerantOAuthLibCore, HubDeviceServer, is_self_registered

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}

# The two kinds of bearer token, as OpenAPI security schemes (one header, two origins).
BEARER_SCHEMES = {
    "apiToken": "a personal API token issued by the hub (`ltm_...`, from the dashboard or `manage.py ltm_token`)",
    "oauthToken": "an OAuth access token from the device flow (POST /oauth/authorize_device, then /oauth/token)",
}
# Either token, or none at all (the invite accept).
OPTIONAL_BEARER = [{name: []} for name in BEARER_SCHEMES] + [{}]


class BearerAuthenticationScheme(OpenApiAuthenticationExtension):
    """oauth.authentication.BearerAuthentication in the OpenAPI description: either token."""

    target_class = "oauth.authentication.BearerAuthentication"
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
        application = get_application_model().objects.filter(client_id=client_id).first() if client_id else None
        if client_id and application is None:
            # oauthlib says invalid_request here; RFC 6749 section 5.2 says invalid_client.
            return _oauth_error("invalid_client", "unknown client_id", status=401)
        if is_self_registered(application):
            # Its token would reach /v1, which only the hub's own clients sign in for.
            return _oauth_error(
                "unauthorized_client", "the device flow is for this hub's own clients; sign in through /oauth/authorize"
            )
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
        # Who asks, for the confirmation page: the optional `device_name` field (oauthlib ignores
        # fields it does not know, so other clients are unaffected), the User-Agent, the address.
        services.device_request_record(
            device_code=body["device_code"],
            address=client_address(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
            requested_name=request.POST.get(DEVICE_NAME_FIELD, ""),
        )
        return JsonResponse(body, headers=NO_STORE)


class TokenView(PostOnly, dot_views.TokenView):
    """POST /oauth/token; the device grant's polling answers come from
    oauth.services.device_grant_poll."""

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
            if status == 200:
                services.device_signed_in(grant=grant, access_token=json.loads(body)["access_token"])
            else:
                transaction.set_rollback(True)  # the grant stays redeemable
        response = JsonResponse(json.loads(body), status=status, headers=NO_STORE)
        for key, value in headers.items():
            response[key] = value
        return response


@method_decorator(csrf_exempt, name="dispatch")
class DeviceCancelView(PostOnly, View):
    """POST /oauth/device/cancel (hub extension), form-encoded `client_id` and `device_code`, as
    the token poll: the client gave up (Ctrl-C), so the code can no longer be approved. 200
    `{"status": "cancelled"}` (also when it was already cancelled, denied or expired); the OAuth
    errors of RFC 6749 section 5.2 otherwise (`invalid_client`, `invalid_grant` for an unknown
    code or one already exchanged for a token)."""

    def post(self, request):
        try:
            services.device_grant_cancel(
                device_code=request.POST.get("device_code", ""), client_id=request.POST.get("client_id", "")
            )
        except HubError as error:
            return _oauth_error(error.code, error.message, http_status(error))
        return JsonResponse({"status": "cancelled"}, headers=NO_STORE)


def _me(request) -> dict:
    user = request.user
    token = selectors.bearer_token_facts(bearer=request.auth)
    data = {"id": user.pk, "username": user.username, "display_name": user.display_name, "email": user.email}
    return MeSerializer({**data, "token": token}).data


@extend_schema_view(
    get=extend_schema(
        summary="Who this bearer is: the account and the token (hub extension)",
        description="What `ltm auth` and `ltm auth whoami` print. `token.hint` is the first 8 hex "
        "digits of sha256(token), what the client prints as token_hash8 and the dashboard shows.",
        responses={200: MeSerializer},
    ),
    patch=extend_schema(
        summary="Set the display name teammates see (hub extension)",
        description='`{"display_name": "Ada"}`; an empty name shows the username. Needs scope `write`.',
        request=MeUpdateSerializer,
        responses={200: MeSerializer},
    ),
)
class MeApi(APIView):
    """GET and PATCH /v1/me (bearer)."""

    def get(self, request):
        return Response(_me(request))

    def patch(self, request):
        data = request.data
        if not isinstance(data, dict) or "display_name" not in data:
            raise BadRequest('send {"display_name": "..."}')
        unknown = sorted(set(data) - {"display_name"})
        if unknown:
            raise BadRequest(f"unknown field: {', '.join(unknown)} (only display_name can change)")
        account_services.user_update_display(actor=request.user, display=data["display_name"])
        return Response(_me(request))
