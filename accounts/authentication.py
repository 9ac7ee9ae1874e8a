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


class TokenScopeAllowsMethod(permissions.BasePermission):
    """Scope `read` allows GET/HEAD/OPTIONS; `write` allows POST and DELETE."""

    message = SCOPE_REFUSED[WRITE]

    def has_permission(self, request, view):
        scopes = getattr(request.auth, "scopes", frozenset())
        needed = READ if request.method in permissions.SAFE_METHODS else WRITE
        self.message = SCOPE_REFUSED[needed]
        return needed in scopes
