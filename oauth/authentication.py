"""Bearer authentication for /v1: personal API tokens (and OAuth access tokens)."""

import functools

from django.http import Http404
from oauth2_provider.settings import oauth2_settings
from rest_framework import authentication, exceptions

from accounts.authentication import scope_refusal
from accounts.services import api_token_touch
from core.errors import HubError
from core.http import client_address
from core.links import external_url
from oauth.selectors import bearer_get
from oauth.server import MCP_PATH
from oauth.services import device_touch, oauth_token_touch


def bearer_from_header(request) -> str | None:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


ANOTHER_RESOURCE = "this token was issued for another resource"


class BearerRefused(Exception):
    """The request carries a bearer token that may not be used here. `description` is None for
    a token that is unknown, revoked or expired, else why a valid token is refused."""

    def __init__(self, description: str | None = None):
        super().__init__(description or "invalid token")
        self.description = description


def authenticate_bearer(request, *, resource: str):
    """The one door of every bearer-authenticated entrance (/v1, /mcp, the invite accept):
    (user, bearer) for the request's token at this hub's `resource` path, None when it sends no
    token. Raises BearerRefused for a token that is not valid, or that was issued for other
    resources (RFC 8707: a client that signed itself in for /mcp). The bearer
    (oauth.selectors.Bearer) carries the token's scopes; the caller's address is recorded as
    the token's last use."""
    plaintext = bearer_from_header(request)
    if plaintext is None:
        return None
    bearer = bearer_get(plaintext=plaintext)
    if bearer is None:
        raise BearerRefused()
    if not _audience_allows(bearer, request, resource):
        raise BearerRefused(ANOTHER_RESOURCE)
    if bearer.use_unrecorded:  # at most once per LAST_USED_RESOLUTION, one UPDATE
        address = client_address(request)
        if bearer.kind == "api":
            api_token_touch(token_id=bearer.token_id, address=address)
        elif bearer.device_id:
            device_touch(details_id=bearer.device_id, address=address)
        else:
            oauth_token_touch(token_id=bearer.token_id)
    return bearer.user, bearer


def _audience_allows(bearer, request, path: str) -> bool:
    """A token of a client that registered itself serves /mcp only; an OAuth token issued for
    resources serves only those; any other token the whole hub. (The URL is built only for a
    token that names resources: most do not.)"""
    if bearer.self_registered and path != MCP_PATH:
        return False
    if not bearer.audiences:
        return True
    validator = oauth2_settings.RESOURCE_SERVER_TOKEN_RESOURCE_VALIDATOR
    return validator(external_url(request, path), list(bearer.audiences))


# What a 401 of /v1 names in WWW-Authenticate.
CHALLENGE = 'Bearer realm="ltm"'


class BearerAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        try:
            return authenticate_bearer(request, resource="/v1")
        except BearerRefused as refused:
            raise exceptions.AuthenticationFailed(refused.description) from None

    def authenticate_header(self, request):
        return CHALLENGE


def bearer_view(view):
    """A plain Django view of /v1 (core.api.by_method's) behind what DRF's dispatch checks before
    a DRF view of /v1 runs (REST_FRAMEWORK's classes; those views set no throttles): the bearer
    (BearerAuthentication), that there is one (IsAuthenticated), then the token's scope for the
    method (TokenScopeAllowsMethod). The view finds the caller in request.user and the bearer in
    request.auth. A refusal, and a HubError or Http404 the view raises, is answered as a DRF view
    answers it (core.api.error_answer)."""

    @functools.wraps(view)
    def checked(request, *args, **kwargs):
        try:
            try:
                found = authenticate_bearer(request, resource="/v1")
            except BearerRefused as refused:
                raise _challenged(exceptions.AuthenticationFailed(refused.description)) from None
            if found is None:
                raise _challenged(exceptions.NotAuthenticated())
            request.user, request.auth = found
            if refused := scope_refusal(request.auth, request.method):
                raise exceptions.PermissionDenied(refused)
            return view(request, *args, **kwargs)
        except (HubError, Http404, exceptions.APIException) as exc:
            # Imported here: core.api loads DRF's views, whose settings import this module.
            from core.api import error_answer

            return error_answer(exc, request)

    return checked


def _challenged(exc: exceptions.APIException) -> exceptions.APIException:
    exc.auth_header = CHALLENGE  # as DRF's dispatch does for a 401: WWW-Authenticate
    return exc
