"""OAuth for clients that sign themselves in (MCP clients): the consent page at
/oauth/authorize and client registration at /oauth/register. The toolkit's views do the
protocol (see oauth.server for what we add); these give them the hub's page, our redirect URI
rule and a rate limit."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from allauth.core import ratelimit
from django.http import JsonResponse
from oauth2_provider import views as dot_views
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2.rfc6749.errors import InvalidRequestError

from core.api import no_store
from core.errors import BadRequest
from core.links import external_url
from core.parsers import read_json_body
from oauth.server import MCP_PATH, is_loopback_host, redirect_uris_problem


def _origin(uri: str) -> str:
    """The CSP source of a redirect URI: its origin, or the scheme alone for an app's own
    (private-use) scheme, which has no origin."""
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https"):
        return f"{parts.scheme}:"
    return f"{parts.scheme}://{parts.netloc}"


class ConsentView(dot_views.AuthorizationView):
    """GET /oauth/authorize: signed in (allauth's page first if not), the person sees which
    client asks, where it sends them back, what it may do and as whom, and allows or denies."""

    template_name = "oauth/consent.html"

    def validate_authorization_request(self, request):
        """PKCE with S256 only: the toolkit would take "plain" here and refuse it only after the
        person has allowed; refuse before asking them."""
        scopes, credentials = super().validate_authorization_request(request)
        if credentials.get("code_challenge_method") != "S256":
            error = InvalidRequestError(
                description='PKCE is required, with code_challenge_method "S256"', state=credentials.get("state")
            )
            raise OAuthToolkitError(error=error, redirect_uri=credentials.get("redirect_uri"))
        return scopes, credentials

    def get_initial(self):
        """A client that names no resource (RFC 8707) is given /mcp, the one resource the hub
        offers clients that sign themselves in: its token then serves /mcp only, never /v1."""
        initial = super().get_initial()
        initial["resource"] = initial.get("resource") or external_url(self.request, MCP_PATH)
        return initial

    def redirect(self, redirect_to, application):
        """Every answer to the client carries `iss` (RFC 9207); the toolkit adds it to successes
        only, and an error answer (access_denied, ...) needs it as much."""
        parts = urlsplit(redirect_to)
        query = parse_qsl(parts.query, keep_blank_values=True)
        if not any(name == "iss" for name, _ in query):
            query.append(("iss", oauth2_settings.oauth2_authorization_server_issuer(self.request)))
            redirect_to = urlunsplit(parts._replace(query=urlencode(query)))
        return super().redirect(redirect_to, application)

    def render_to_response(self, context, **kwargs):
        redirect_uri = context.get("redirect_uri") or ""
        parts = urlsplit(redirect_uri)
        context["redirect_host"] = parts.netloc if parts.scheme in ("http", "https") else f"{parts.scheme}:"
        context["redirect_is_local"] = parts.scheme not in ("http", "https") or is_loopback_host(parts.hostname)
        context["scope_rows"] = list(zip(context.get("scopes") or [], context.get("scopes_descriptions") or []))
        response = super().render_to_response(context, **kwargs)
        if redirect_uri:
            # The answer to Allow or Deny redirects the form's POST to the client: the page's
            # form-action must name that origin, or the browser stops the redirect.
            response._csp_update = {"form-action": [_origin(redirect_uri)]}
        return response


def _refusal(error: str, description: str) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=400)


def _metadata_refusal(request) -> JsonResponse | None:
    """RFC 7591's answer to client metadata the hub refuses, before the toolkit reads it (it
    answers anything else that is wrong): a body read as /v1 reads JSON (no NUL, lone surrogate
    or deep nesting, which would fail the database or the parser), a grant or response type the
    authorization server metadata does not advertise, a redirect URI outside our rule."""
    try:
        metadata = read_json_body(request.body)
    except BadRequest as exc:
        return _refusal("invalid_client_metadata", exc.message)
    if not isinstance(metadata, dict):
        return None
    if not isinstance(metadata.get("client_name", ""), str):
        return _refusal("invalid_client_metadata", "client_name must be a string")
    offered = {
        "grant_types": oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED,
        "response_types": oauth2_settings.OAUTH2_RESPONSE_TYPES_SUPPORTED,
    }
    for field, supported in offered.items():
        values = metadata.get(field, [])
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            return _refusal("invalid_client_metadata", f"{field} must be an array of strings")
        refused = next((value for value in values if value not in supported), None)
        if refused is not None:
            return _refusal(
                "invalid_client_metadata",
                f"{field} {refused[:100]!r} is not offered by this hub (offered: {', '.join(supported)})",
            )
    problem = redirect_uris_problem(metadata.get("redirect_uris"))
    if problem:
        return _refusal("invalid_redirect_uri", problem)
    return None


@no_store  # the answer holds the client secret and the registration token
class ClientRegistrationView(dot_views.DynamicClientRegistrationView):
    """POST /oauth/register (RFC 7591): open to anyone, as MCP clients register before anyone
    signs in; the hub's metadata checks (`_metadata_refusal`); a limit per address."""

    def post(self, request, *args, **kwargs):
        if not ratelimit.consume(request, action="oauth_register"):
            response = JsonResponse(
                {
                    "error": "slow_down",
                    "error_description": "too many registrations from this address; wait and try again",
                },
                status=429,
            )
            response["Retry-After"] = "60"
            return response
        return _metadata_refusal(request) or super().post(request, *args, **kwargs)


@no_store  # the answers hold the client secret and the registration token
class ClientConfigurationView(dot_views.DynamicClientRegistrationManagementView):
    """GET/PUT/DELETE /oauth/register/<client_id> (RFC 7592), with the registration token."""

    def put(self, request, client_id, *args, **kwargs):
        refused = self._authenticate_registration_request(request, client_id)
        if not isinstance(refused, JsonResponse):
            refused = _metadata_refusal(request)
        return refused or super().put(request, client_id, *args, **kwargs)
