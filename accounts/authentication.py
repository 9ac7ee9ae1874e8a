"""Bearer authentication for /v1: personal API tokens (and OAuth access tokens)."""

from dataclasses import dataclass, field

from django.utils import timezone
from oauth2_provider.models import get_access_token_model
from rest_framework import authentication, exceptions, permissions

from accounts.models import ApiToken, hash_token
from accounts.services import api_token_touch, oauth_token_touch

READ = "read"
WRITE = "write"
# What a token without the needed scope hears (the API and the invite accept say the same).
SCOPE_REFUSED = {
    READ: "this token's scope does not allow reading (it needs 'read')",
    WRITE: "this token's scope does not allow this request (it needs 'write')",
}


@dataclass
class BearerCredential:
    """What the bearer proved: which kind of token, and the scopes it grants."""

    kind: str
    scopes: frozenset = field(default_factory=lambda: frozenset({READ, WRITE}))
    token: object = None


def bearer_from_header(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def authenticate_bearer(plaintext: str):
    """(user, credential) for a valid token, else None. Used by the API and by invites."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(token_hash=hash_token(plaintext), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return _authenticate_oauth(plaintext)
    api_token_touch(token=token)
    return token.user, BearerCredential(kind="api", token=token)


def _authenticate_oauth(plaintext: str):
    """An OAuth access token from the device flow, looked up by its checksum (only the checksum
    is stored), with the scopes it was granted."""
    token = (
        get_access_token_model()
        .objects.select_related("user", "application")
        .filter(token_checksum=hash_token(plaintext), expires__gt=timezone.now(), user__is_active=True)
        .first()
    )
    if token is None:
        return None
    oauth_token_touch(token=token)
    return token.user, BearerCredential(kind="oauth", scopes=frozenset(token.scope.split()), token=token)


class BearerAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        plaintext = bearer_from_header(request)
        if plaintext is None:
            return None
        result = authenticate_bearer(plaintext)
        if result is None:
            raise exceptions.AuthenticationFailed()
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
