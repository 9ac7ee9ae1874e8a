"""The OAuth endpoints in the OpenAPI description (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]):
the device flow's forms (section 6 of the protocol) and the endpoints of clients that sign
themselves in. They are django-oauth-toolkit's views, not DRF ones, so drf-spectacular cannot see
them: their plain-HTTP parts are described here (the consent page is a page, not described). /mcp
itself is JSON-RPC (the MCP Streamable HTTP transport), described by the MCP specification
instead."""

from oauth2_provider.settings import oauth2_settings

from oauth.device_flow import DEVICE_GRANT_TYPE

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
        "device_authorization_endpoint": {"type": "string", "format": "uri"},
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
    "description": "RFC 7591 client metadata. Redirect URIs: https, http on a loopback address, or the "
    "app's own private-use scheme (`cursor://...`, `com.example.app:/...`), never one that opens a "
    "browser at an address (`googlechrome://`, `x-safari-https://`, ...); no fragment, no "
    "whitespace. Grant and response types: those of the authorization server metadata but the device "
    "code, which is the hub's own client's. Not the name of one of the hub's own clients. The client "
    "gets tokens for the hub's /mcp only.",
    "properties": {
        "redirect_uris": URIS,
        "client_name": {"type": "string"},
        "grant_types": {
            "type": "array",
            "items": {
                "type": "string",
                "enum": [grant for grant in oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED if grant != DEVICE_GRANT_TYPE],
            },
        },
        "response_types": {
            "type": "array",
            "items": {"type": "string", "enum": oauth2_settings.OAUTH2_RESPONSE_TYPES_SUPPORTED},
        },
        "token_endpoint_auth_method": {"type": "string", "enum": ["none", "client_secret_basic", "client_secret_post"]},
        "application_type": {"type": "string", "enum": ["web", "native"]},
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


# The device flow's forms (RFC 8628, RFC 6749 section 4.1.3 and 6) and their answers.
DEVICE_AUTHORIZATION_FORM = {
    "type": "object",
    "properties": {
        "client_id": {"type": "string", "examples": ["ltm-cli"]},
        "scope": {"type": "string", "examples": ["read write"]},
        "device_name": {"type": "string", "description": "hub extension: the name the confirmation page shows"},
    },
    "required": ["client_id"],
}
DEVICE_AUTHORIZATION = {
    "type": "object",
    "properties": {
        "device_code": {"type": "string"},
        "user_code": {"type": "string"},
        "verification_uri": {"type": "string", "format": "uri"},
        "verification_uri_complete": {"type": "string", "format": "uri"},
        "expires_in": {"type": "integer"},
        "interval": {"type": "integer"},
    },
    "required": ["device_code", "user_code", "verification_uri", "expires_in"],
}
TOKEN_FORM = {
    "type": "object",
    "properties": {
        "grant_type": {"type": "string", "enum": oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED},
        "client_id": {"type": "string"},
        "client_secret": {"type": "string"},
        "device_code": {"type": "string"},
        "code": {"type": "string"},
        "redirect_uri": {"type": "string"},
        "code_verifier": {"type": "string"},
        "refresh_token": {"type": "string"},
        "resource": {"type": "string"},
        "scope": {"type": "string"},
    },
    "required": ["grant_type"],
}
TOKEN = {
    "type": "object",
    "properties": {
        "access_token": {"type": "string"},
        "token_type": {"type": "string"},
        "expires_in": {"type": "integer"},
        "refresh_token": {"type": "string"},
        "scope": {"type": "string"},
    },
    "required": ["access_token", "token_type"],
}
CANCEL_FORM = {
    "type": "object",
    "properties": {"client_id": {"type": "string"}, "device_code": {"type": "string"}},
    "required": ["client_id", "device_code"],
}
CANCELLED = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["cancelled"]}},
    "required": ["status"],
}


def _json(schema, description):
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _form_post(operation_id, summary, description, form, answer, errors):
    """A POST of an application/x-www-form-urlencoded form with no bearer, answered in JSON."""
    return {
        "post": {
            "operationId": operation_id,
            "summary": summary,
            "description": description,
            "tags": ["oauth"],
            "security": [{}],
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": form}}},
            "responses": {
                "200": _json(answer, "done"),
                **{str(status): _json(OAUTH_ERROR, meaning) for status, meaning in errors.items()},
                "503": _unavailable(),
            },
        }
    }


def _unavailable():
    return _json(ERROR, "the hub cannot reach its database")


def _metadata(summary, schema, description):
    return {
        "get": {
            "operationId": summary.lower().replace(" ", "_"),
            "summary": summary,
            "description": description,
            "tags": ["oauth"],
            "security": [{}],
            "responses": {"200": _json(schema, "the metadata document"), "503": _unavailable()},
        }
    }


def add_oauth_paths(result, generator, request, public):
    """POSTPROCESSING_HOOKS: the well-known documents, the device flow and client registration."""
    resource_doc = (
        "Where an MCP client finds the authorization server for the hub's MCP endpoint "
        "(a 401 from /mcp names it in `WWW-Authenticate: Bearer resource_metadata=...`)."
    )
    result["paths"].update(
        {
            "/.well-known/oauth-protected-resource/mcp": _metadata(
                "Protected resource metadata of mcp", PROTECTED_RESOURCE, resource_doc
            ),
            "/.well-known/oauth-protected-resource": _metadata(
                "Protected resource metadata", PROTECTED_RESOURCE, "The same document for the hub as a whole."
            ),
            "/.well-known/oauth-authorization-server": _metadata(
                "Authorization server metadata",
                AUTHORIZATION_SERVER,
                "Endpoints and capabilities: authorization code with PKCE S256, Dynamic Client Registration, "
                "Client ID Metadata Documents, `iss` in authorization responses.",
            ),
            "/oauth/authorize_device": _form_post(
                "oauth_authorize_device",
                "Start a device sign-in (RFC 8628)",
                "The `ltm` client's first step: a device code to poll with and a user code to show. "
                "A limit per address.",
                DEVICE_AUTHORIZATION_FORM,
                DEVICE_AUTHORIZATION,
                {
                    400: "invalid_request, invalid_scope, unauthorized_client (a client that registered itself), "
                    "or a NUL character in a field",
                    401: "invalid_client: unknown client_id",
                    429: "slow_down: too many sign-in requests from this address",
                },
            ),
            "/oauth/token": _form_post(
                "oauth_token",
                "Exchange a grant for a token (RFC 6749, RFC 8628)",
                "The device code while the person approves (`authorization_pending`, `slow_down`, "
                "`access_denied`, `expired_token`), an authorization code with its PKCE verifier, or a "
                "refresh token.",
                TOKEN_FORM,
                TOKEN,
                {
                    400: "an RFC 6749 section 5.2 or RFC 8628 section 3.5 error, or a NUL character in a field",
                    401: "invalid_client",
                },
            ),
            "/oauth/device/cancel": _form_post(
                "oauth_device_cancel",
                "Cancel a device sign-in (hub extension)",
                "The client gave up: the code can no longer be approved (also answered when it already "
                "was cancelled, denied or expired).",
                CANCEL_FORM,
                CANCELLED,
                {
                    400: "invalid_grant: unknown code, or one already exchanged; or a NUL character in a field",
                    401: "invalid_client",
                },
            ),
            "/oauth/register": {
                "post": {
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
                }
            },
        }
    )
    return result
