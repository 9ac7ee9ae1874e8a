"""The OAuth endpoints for clients that sign themselves in, in the OpenAPI description
(SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]). They are django-oauth-toolkit's views, not DRF
ones, so drf-spectacular cannot see them: their plain-HTTP parts are described here. /mcp itself
is JSON-RPC (the MCP Streamable HTTP transport), described by the MCP specification instead."""

ERROR = {"$ref": "#/components/schemas/Error"}
OAUTH_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
    "required": ["error"],
}
URIS = {"type": "array", "items": {"type": "string", "format": "uri"}}
STRINGS = {"type": "array", "items": {"type": "string"}}

PROTECTED_RESOURCE = {
    "type": "object",
    "description": "RFC 9728 protected resource metadata",
    "properties": {
        "resource": {"type": "string", "format": "uri"},
        "authorization_servers": URIS,
        "scopes_supported": STRINGS,
        "bearer_methods_supported": STRINGS,
        "resource_name": {"type": "string"},
    },
    "required": ["resource"],
}
AUTHORIZATION_SERVER = {
    "type": "object",
    "description": "RFC 8414 authorization server metadata",
    "properties": {
        "issuer": {"type": "string", "format": "uri"},
        "authorization_endpoint": {"type": "string", "format": "uri"},
        "token_endpoint": {"type": "string", "format": "uri"},
        "registration_endpoint": {"type": "string", "format": "uri"},
        "response_types_supported": STRINGS,
        "grant_types_supported": STRINGS,
        "scopes_supported": STRINGS,
        "code_challenge_methods_supported": STRINGS,
        "token_endpoint_auth_methods_supported": STRINGS,
        "client_id_metadata_document_supported": {"type": "boolean"},
        "authorization_response_iss_parameter_supported": {"type": "boolean"},
    },
    "required": ["issuer", "response_types_supported"],
}
CLIENT_METADATA = {
    "type": "object",
    "description": "RFC 7591 client metadata. Redirect URIs: https, or http on a loopback address.",
    "properties": {
        "redirect_uris": URIS,
        "client_name": {"type": "string"},
        "grant_types": STRINGS,
        "response_types": STRINGS,
        "token_endpoint_auth_method": {"type": "string", "enum": ["none", "client_secret_basic", "client_secret_post"]},
        "scope": {"type": "string"},
    },
    "required": ["redirect_uris"],
}
CLIENT_INFORMATION = {
    "type": "object",
    "description": "RFC 7591 client information response",
    "properties": {
        **CLIENT_METADATA["properties"],
        "client_id": {"type": "string"},
        "client_secret": {"type": "string"},
        "registration_access_token": {"type": "string"},
        "registration_client_uri": {"type": "string", "format": "uri"},
    },
    "required": ["client_id", "redirect_uris"],
}


def _json(schema, description):
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _unavailable():
    return _json(ERROR, "the hub cannot reach its database")


def _metadata(summary, schema, description):
    return {"get": {
        "operationId": summary.lower().replace(" ", "_"),
        "summary": summary,
        "description": description,
        "tags": ["oauth"],
        "security": [{}],
        "responses": {"200": _json(schema, "the metadata document"), "503": _unavailable()},
    }}


def add_oauth_paths(result, generator, request, public):
    """POSTPROCESSING_HOOKS: the well-known documents and client registration."""
    resource_doc = ("Where an MCP client finds the authorization server for the hub's MCP endpoint "
                    "(a 401 from /mcp names it in `WWW-Authenticate: Bearer resource_metadata=...`).")
    result["paths"].update({
        "/.well-known/oauth-protected-resource/mcp": _metadata(
            "Protected resource metadata of mcp", PROTECTED_RESOURCE, resource_doc),
        "/.well-known/oauth-protected-resource": _metadata(
            "Protected resource metadata", PROTECTED_RESOURCE, "The same document for the hub as a whole."),
        "/.well-known/oauth-authorization-server": _metadata(
            "Authorization server metadata", AUTHORIZATION_SERVER,
            "Endpoints and capabilities: authorization code with PKCE S256, Dynamic Client Registration, "
            "Client ID Metadata Documents, `iss` in authorization responses."),
        "/oauth/register": {"post": {
            "operationId": "oauth_register",
            "summary": "Register a client (RFC 7591)",
            "description": "Open registration for MCP clients; a limit per address.",
            "tags": ["oauth"],
            "security": [{}],
            "requestBody": {"required": True, "content": {"application/json": {"schema": CLIENT_METADATA}}},
            "responses": {
                "201": _json(CLIENT_INFORMATION, "the registered client"),
                "400": _json(OAUTH_ERROR, "invalid_client_metadata or invalid_redirect_uri"),
                "429": _json(OAUTH_ERROR, "too many registrations from this address"),
                "503": _unavailable(),
            },
        }},
    })
    return result
