"""What a token's scope allows, for personal API tokens and OAuth access tokens alike (the bearer
itself is checked by oauth.authentication)."""

from rest_framework import permissions

READ = "read"
WRITE = "write"
# What a token without the needed scope hears (the API and the invite accept say the same).
SCOPE_REFUSED = {
    READ: "this token's scope does not allow reading (it needs 'read')",
    WRITE: "this token's scope does not allow this request (it needs 'write')",
}


def scope_refusal(bearer, method: str) -> str | None:
    """Why the scope of `bearer` (oauth.selectors.Bearer) does not allow a request of `method`,
    or None when it does: scope `read` allows GET/HEAD/OPTIONS; `write` allows POST and DELETE."""
    needed = READ if method in permissions.SAFE_METHODS else WRITE
    return None if needed in getattr(bearer, "scopes", frozenset()) else SCOPE_REFUSED[needed]


class TokenScopeAllowsMethod(permissions.BasePermission):
    """scope_refusal for the DRF views (REST_FRAMEWORK's permission classes)."""

    message = SCOPE_REFUSED[WRITE]

    def has_permission(self, request, view):
        if refused := scope_refusal(request.auth, request.method):
            self.message = refused
        return refused is None
