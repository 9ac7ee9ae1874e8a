"""OAuth for clients that sign themselves in (MCP clients): the consent page at
/oauth/authorize and client registration at /oauth/register. The toolkit's views do the
protocol (see oauth.server, oauth.clients and oauth.redirect_uris for what we add); these give them the hub's page, our redirect URI
rule and a rate limit."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from allauth.core import ratelimit
from django.http import JsonResponse
from django.utils.decorators import method_decorator
from oauth2_provider import views as dot_views
from oauth2_provider.exceptions import FatalClientError, OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2.rfc6749.errors import (
    CustomOAuth2Error,
    InvalidRedirectURIError,
    InvalidRequestError,
    InvalidScopeError,
)

from accounts.mfa import second_factor_asked, second_factor_passed
from core.api import no_store
from core.errors import BadRequest
from core.links import external_url
from core.parsers import read_json_body
from ltm.protocol.tools import TOOLS
from oauth.clients import client_name_problem, resource_problem
from oauth.device_flow import DEVICE_GRANT_TYPE
from oauth.redirect_uris import is_loopback_host, redirect_uri_problem, redirect_uris_problem
from oauth.server import MCP_PATH


def _origin(uri: str) -> str:
    """The CSP source of a redirect URI: its origin, or the scheme alone for an app's own
    (private-use) scheme, which has no origin."""
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https"):
        return f"{parts.scheme}:"
    return f"{parts.scheme}://{parts.netloc}"


# What each scope lets an app that signed itself in do. Its token reaches the hub through the MCP
# tools only, so the scopes' hub-wide descriptions (which speak of managing teams) would say more
# than it may do; the tools of each scope come from their one declaration.
MCP_SCOPE_WORDS = {
    "read": "read, list and search your packets, your teams' packets and the packets shared with you",
    "write": "save, delete and publish packets, and share them with people on this hub",
}


def _mcp_scope_rows(scopes, descriptions) -> list[tuple[str, str, str]]:
    """(scope, what it allows, the MCP tools that need it) for the consent page."""
    rows = []
    for scope, description in zip(scopes or [], descriptions or []):
        tools = ", ".join(name for name, spec in TOOLS.items() if spec.scope == scope)
        rows.append((scope, MCP_SCOPE_WORDS.get(scope, description), tools))
    return rows


# What a client asking to sign people in with the hub (OpenID Connect) may ask, and nothing else.
SIGN_IN_SCOPES = frozenset({"openid", "profile", "email"})


def _signs_in(scopes) -> bool:
    """Whether the request is an OpenID Connect sign-in ("Sign in with ltm hub")."""
    return "openid" in (scopes.split() if isinstance(scopes, str) else scopes or ())


@method_decorator(second_factor_asked, name="dispatch")
class ConsentView(dot_views.AuthorizationView):
    """GET /oauth/authorize: signed in (allauth's page first if not, then the second factor if the
    person has one and the session has not shown it), the person sees which client asks, where
    it sends them back, what it may do and as whom, and allows or denies.

    Every grant made here is for the hub's MCP endpoint (RFC 8707): a `resource` that is not
    exactly /mcp, once normalised, is refused with invalid_target before the person is asked and
    again when the form comes back; none means /mcp. Tokens for /v1 come from the device flow of
    the hub's own client only. An OpenID Connect sign-in (scope `openid`) asks for the person's
    identity only (SIGN_IN_SCOPES), and its token serves userinfo alone: no /v1 or MCP call takes
    its scopes."""

    template_name = "oauth/consent.html"

    def _mcp_resource(self) -> str:
        return external_url(self.request, MCP_PATH)

    def _resources(self, scopes) -> list[str]:
        """What a grant is for: /mcp, or nothing for a sign-in, whose scopes no /v1 or MCP call
        accepts (a token bound to the userinfo endpoint would not pass the toolkit's own check
        there, which compares the request's path with the absolute URI)."""
        return [] if _signs_in(scopes) else [self._mcp_resource()]

    def _refuse(self, credentials, resources, scopes) -> None:
        """Raise what the client must hear about its redirect URI (under our rule, on the hub's
        page: an application registered before the rule refused its URI, or made in the admin,
        is never sent there), its scopes (a sign-in asks for the person's identity alone) or its
        resources (invalid_target, RFC 8707)."""
        problem = redirect_uri_problem(credentials.get("redirect_uri"))
        if problem:
            raise FatalClientError(error=InvalidRedirectURIError(description=problem))
        asked = set(scopes.split() if isinstance(scopes, str) else scopes or ())
        if _signs_in(scopes) and not asked <= SIGN_IN_SCOPES:
            description = f"a sign-in (scope openid) asks only for {', '.join(sorted(SIGN_IN_SCOPES))}"
            error = InvalidScopeError(description=description, state=credentials.get("state"))
            raise OAuthToolkitError(error=error, redirect_uri=credentials.get("redirect_uri"))
        if _signs_in(scopes):
            problem = "a sign-in (scope openid) is for no resource" if resources else None
        else:
            problem = resource_problem(resources, mcp_resource=self._mcp_resource())
        if problem:
            error = CustomOAuth2Error("invalid_target", description=problem, state=credentials.get("state"))
            raise OAuthToolkitError(error=error, redirect_uri=credentials.get("redirect_uri"))

    def validate_authorization_request(self, request):
        """PKCE with S256 only: the toolkit would take "plain" here and refuse it only after the
        person has allowed; refuse before asking them. The same for a redirect URI outside our
        rule and a resource other than /mcp."""
        scopes, credentials = super().validate_authorization_request(request)
        self._refuse(credentials, request.GET.getlist("resource"), scopes)
        if credentials.get("code_challenge_method") != "S256":
            error = InvalidRequestError(
                description='PKCE is required, with code_challenge_method "S256"', state=credentials.get("state")
            )
            raise OAuthToolkitError(error=error, redirect_uri=credentials.get("redirect_uri"))
        return scopes, credentials

    def create_authorization_response(self, request, scopes, credentials, allow):
        """The one step that makes a grant, whichever way the page got here (the form's POST, or
        a client allowed before): checked again, as the form's hidden fields can be edited, and
        its resource is this hub's /mcp (none for a sign-in), as written here, even when the field
        was emptied. The grant notes whether the session had shown a
        second factor (HubOAuth2Validator.save_authorization_code)."""
        self._refuse(credentials, credentials.get("resource"), scopes)
        credentials = {
            **credentials,
            "resource": self._resources(scopes),
            "second_factor": second_factor_passed(request),
        }
        return super().create_authorization_response(request, scopes, credentials, allow)

    def get_initial(self):
        initial = super().get_initial()
        initial["resource"] = " ".join(self._resources(initial.get("scope", "")))
        return initial

    def redirect(self, redirect_to, application):
        """Every answer to the client carries `iss` (RFC 9207); the toolkit adds it to successes
        only, and an error answer (access_denied, ...) needs it as much. An error found while
        validating the request comes without its application; the toolkit has checked the
        redirect URI against it by then, and its private-use scheme is allowed only for it."""
        parts = urlsplit(redirect_to)
        query = parse_qsl(parts.query, keep_blank_values=True)
        if not any(name == "iss" for name, _ in query):
            query.append(("iss", oauth2_settings.oauth2_authorization_server_issuer(self.request)))
            redirect_to = urlunsplit(parts._replace(query=urlencode(query)))
        if application is None:
            client_id = self.request.GET.get("client_id") or self.request.POST.get("client_id")
            application = get_application_model().objects.filter(client_id=client_id).first() if client_id else None
        return super().redirect(redirect_to, application)

    def render_to_response(self, context, **kwargs):
        redirect_uri = context.get("redirect_uri") or ""
        parts = urlsplit(redirect_uri)
        web = parts.scheme in ("http", "https")
        if web:
            context["redirect_host"] = parts.netloc
        else:  # an app's own scheme, with its host: the scheme alone does not say where it goes
            context["redirect_host"] = f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"
        context["redirect_scheme"] = "" if web else parts.scheme
        context["redirect_is_local"] = not web or is_loopback_host(parts.hostname)
        context["mcp_url"] = self._mcp_resource()
        context["signs_in"] = _signs_in(context.get("scopes"))
        context["scopes_descriptions_pairs"] = list(
            zip(context.get("scopes") or [], context.get("scopes_descriptions") or [])
        )
        context["scope_rows"] = _mcp_scope_rows(context.get("scopes"), context.get("scopes_descriptions"))
        response = super().render_to_response(context, **kwargs)
        if redirect_uri:
            # The answer to Allow or Deny redirects the form's POST to the client: the page's
            # form-action must name that origin, or the browser stops the redirect.
            response._csp_update = {"form-action": [_origin(redirect_uri)]}
        return response


class ResourceMetadataView(dot_views.OAuthProtectedResourceMetadataView):
    """The protected resource metadata (RFC 9728) of the hub and of /mcp: the scopes their calls
    take, not those of a sign-in, which none of them does."""

    def get_scopes_supported(self):
        return [scope for scope in super().get_scopes_supported() if scope not in SIGN_IN_SCOPES]


def _refusal(error: str, description: str) -> JsonResponse:
    return JsonResponse({"error": error, "error_description": description}, status=400)


def _metadata_refusal(request) -> JsonResponse | None:
    """RFC 7591's answer to client metadata the hub refuses, before the toolkit reads it (it
    answers anything else that is wrong): a body read as /v1 reads JSON (no NUL, lone surrogate
    or deep nesting, which would fail the database or the parser), the name of one of the hub's
    own clients, a grant or response type the authorization server metadata does not advertise
    or the device grant (the hub's own clients'), a redirect URI outside our rule."""
    try:
        metadata = read_json_body(request.body)
    except BadRequest as exc:
        return _refusal("invalid_client_metadata", exc.message)
    if not isinstance(metadata, dict):
        return None
    if not isinstance(metadata.get("client_name", ""), str):
        return _refusal("invalid_client_metadata", "client_name must be a string")
    problem = client_name_problem(metadata.get("client_name", ""))
    if problem:
        return _refusal("invalid_client_metadata", problem)
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
    if DEVICE_GRANT_TYPE in metadata.get("grant_types", []):
        return _refusal(
            "invalid_client_metadata",
            f"grant_types {DEVICE_GRANT_TYPE!r} is for this hub's own command-line client; an app that "
            "registers itself signs people in with authorization_code",
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
