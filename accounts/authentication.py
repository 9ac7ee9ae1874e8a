"""Bearer authentication for /v1: personal API tokens (and OAuth access tokens)."""

from oauth2_provider.settings import oauth2_settings
from rest_framework import authentication, exceptions, permissions

from accounts.selectors import bearer_get
from accounts.services import api_token_touch, device_touch, oauth_token_touch
from core.http import client_address
from core.links import external_url

READ = "read"
WRITE = "write"
# What a token without the needed scope hears (the API and the invite accept say the same).
SCOPE_REFUSED = {
    READ: "this token's scope does not allow reading (it needs 'read')",
    WRITE: "this token's scope does not allow this request (it needs 'write')",
}


def bearer_from_header(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def authenticate_bearer(plaintext: str, address: str | None = None):
    """(user, bearer) for a valid token, else None. Used by the API and by invites. The bearer
    (accounts.selectors.Bearer) carries the token's scopes. `address` is the caller's, recorded
    as the token's last use."""
    bearer = bearer_get(plaintext=plaintext)
    if bearer is None:
        return None
    if bearer.use_unrecorded:  # at most once per LAST_USED_RESOLUTION, one UPDATE
        if bearer.kind == "api":
            api_token_touch(token_id=bearer.token_id, address=address)
        elif bearer.device_id:
            device_touch(details_id=bearer.device_id, address=address)
        else:
            oauth_token_touch(token_id=bearer.token_id)
    return bearer.user, bearer


ANOTHER_RESOURCE = "this token was issued for another resource"


def audience_allows(bearer, request, path: str) -> bool:
    """Whether the token may be used at this hub's `path`: an OAuth token issued for resources
    (RFC 8707, a client that signed itself in for /mcp) serves only those; any other token the
    whole hub. (The URL is built only for a token that names resources: most do not.)"""
    if not bearer.audiences:
        return True
    validator = oauth2_settings.RESOURCE_SERVER_TOKEN_RESOURCE_VALIDATOR
    return validator(external_url(request, path), list(bearer.audiences))


class BearerAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        plaintext = bearer_from_header(request)
        if plaintext is None:
            return None
        result = authenticate_bearer(plaintext, client_address(request))
        if result is None:
            raise exceptions.AuthenticationFailed()
        if not audience_allows(result[1], request, "/v1"):
            raise exceptions.AuthenticationFailed(ANOTHER_RESOURCE)
        return result

    def authenticate_header(self, request):
        return 'Bearer realm="ltm"'


class TokenScopeAllowsMethod(permissions.BasePermission):
    """Scope `read` allows GET/HEAD/OPTIONS; `write` allows POST and DELETE."""

    message = SCOPE_REFUSED[WRITE]

    def has_permission(self, request, view):
        scopes = getattr(request.auth, "scopes", frozenset())
        needed = READ if request.method in permissions.SAFE_METHODS else WRITE
        self.message = SCOPE_REFUSED[needed]
        return needed in scopes
