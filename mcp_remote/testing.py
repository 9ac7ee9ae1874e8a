"""Helpers of the tests of MCP clients that sign themselves in (mcp_remote/tests, tests/e2e)."""


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
