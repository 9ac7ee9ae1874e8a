"""Helpers of the tests of /mcp (mcp_remote/tests, tests/e2e): JSON-RPC calls through Django's test
client, a session of the MCP SDK's own client against a live hub, and the metadata of MCP clients
that sign themselves in."""

import json

from django.test import Client

from cli.testing import run_async

PROTOCOL = "2025-11-25"
HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream", "HTTP_MCP_PROTOCOL_VERSION": PROTOCOL}


def rpc(token, method, params=None, *, request_id=1, client=None, **headers):
    """POST one JSON-RPC request to /mcp, with `token` as the bearer (None: no Authorization)."""
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return (client or Client()).post(
        "/mcp", data=json.dumps(body), content_type="application/json", **HEADERS, **auth, **headers
    )


def call(token, name, arguments=None):
    """(text, is_error) of the tool call `name` with `arguments`."""
    response = rpc(token, "tools/call", {"name": name, "arguments": arguments or {}})
    assert response.status_code == 200, response.content
    result = response.json()["result"]
    return "".join(block["text"] for block in result["content"]), result.get("isError", False)


def session(url, token, steps, statuses=None):
    """Connect with the SDK's client (bearer header) to the hub at `url`, run `steps(client)`,
    return its result; the HTTP status of every answer goes to `statuses`."""
    # The SDK is imported here, by the tests that drive it, as the hub imports it on a first call.
    import httpx2
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client

    async def record(response):
        if statuses is not None:
            statuses.append(response.status_code)

    async def main():
        async with httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=30, event_hooks={"response": [record]}
        ) as http:
            async with McpClient(
                streamable_http_client(url + "/mcp", http_client=http), read_timeout_seconds=30
            ) as client:
                return await steps(client)

    return run_async(main())


def public_client(name, redirect_uris, **more):
    """The metadata that a public MCP client (no secret: it proves itself with PKCE) registers, or
    publishes as its client metadata document: it asks for codes, sent to `redirect_uris`, and for
    refresh tokens; `more` adds to that or overrides it."""
    return {
        "client_name": name,
        "redirect_uris": redirect_uris,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **more,
    }
