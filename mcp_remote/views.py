"""POST /mcp: bearer authentication as on /v1 and the limits, then the SDK (mcp_remote.server).

Bearer tokens are checked by oauth.authentication (one lookup, nothing cached, so a revoked
token fails on its very next request): personal API tokens, device-flow tokens and tokens of
clients that signed themselves in. An OAuth token issued for a resource (RFC 8707) must name
this endpoint; tokens without one (the device flow's) are good for the whole hub. A missing or
bad token answers 401 with `WWW-Authenticate: Bearer resource_metadata=...` (RFC 9728), where a
client that signs itself in finds the authorization server."""

from django.conf import settings
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from core.links import external_url
from mcp_remote.tools import Caller
from oauth.authentication import BearerRefused, authenticate_bearer, bearer_from_header
from oauth.server import MCP_PATH

RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource/mcp"
INVALID_REQUEST = -32600  # JSON-RPC


def _rpc_error(status: int, message: str) -> JsonResponse:
    return JsonResponse(
        {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}, status=status
    )


def _unauthorized(request, error: str | None, description: str) -> JsonResponse:
    challenge = f'Bearer resource_metadata="{external_url(request, RESOURCE_METADATA_PATH)}", scope="read write"'
    if error:  # RFC 6750 section 3: no error code when no token was sent
        challenge += f', error="{error}", error_description="{description}"'
    body = {"error": error or "invalid_request", "error_description": description}
    return JsonResponse(body, status=401, headers={"WWW-Authenticate": challenge, "Cache-Control": "no-store"})


@csrf_exempt
def endpoint(request):
    if request.method != "POST":
        # Stateless: no stream for the server to talk first (GET) and no session to end
        # (DELETE); the transport allows a 405 for both, and a sync worker must not hold a stream.
        response = _rpc_error(405, f"method {request.method} not allowed; send JSON-RPC with POST")
        response["Allow"] = "POST"
        return response
    try:
        authenticated = authenticate_bearer(request, resource=MCP_PATH)
    except BearerRefused as refused:
        return _unauthorized(
            request, "invalid_token", refused.description or "this token is unknown, revoked or expired"
        )
    if authenticated is None:
        return _unauthorized(request, None, "sign in: send a bearer token (see resource_metadata)")
    user, bearer = authenticated

    limit = settings.LTM_MCP_MAX_REQUEST_BYTES
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if request.META.get("HTTP_TRANSFER_ENCODING") and not request.META.get("CONTENT_LENGTH"):
        return _rpc_error(411, "send the request with a Content-Length header (chunked bodies are not read)")
    if not (declared.isascii() and declared.isdigit()):
        return _rpc_error(400, f"invalid Content-Length header {declared[:20]!r}")
    if int(declared) > limit:
        return _rpc_error(413, f"request body is {declared} bytes; the maximum is {limit} bytes")

    # The SDK (with pydantic and starlette: bench/README.md has its memory) loads on a process's
    # first /mcp call, so web processes that never serve MCP do not carry it.
    from mcp_remote.server import respond

    caller = Caller(user=user, scopes=bearer.scopes, token=bearer_from_header(request), request=request)
    return respond(request, caller, request.body, limit)
