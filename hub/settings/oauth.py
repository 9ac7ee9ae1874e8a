"""The authorization server (django-oauth-toolkit) and the remote MCP endpoint it signs clients in
to."""

from .environment import LTM_EXTERNAL_URL, env

# OAuth (django-oauth-toolkit) for the device flow of the `ltm` client (see oauth/server.py).
# Tokens issued to `ltm-cli` live this long: the client never refreshes, so in practice they last
# until the person revokes them on the dashboard.
LTM_CLI_TOKEN_LIFETIME_DAYS = env.int("LTM_CLI_TOKEN_LIFETIME_DAYS", default=3650)
OAUTH2_PROVIDER = {
    "SCOPES": {
        "read": "read your packets, teams and team members",
        "write": "push, delete and publish packets, and create, leave or manage teams",
        # Clients that sign themselves in get a refresh token whether they ask for this or not;
        # it is advertised and accepted for the clients that ask for it by name (ChatGPT).
        "offline_access": "stay connected: renew its access without asking you again",
    },
    "DEFAULT_SCOPES": ["read", "write"],
    "OAUTH_DEVICE_VERIFICATION_URI": "/device",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": "/device?user_code={user_code}",
    "OAUTH2_SERVER_CLASS": "oauth.server.HubOAuth2Server",
    "OAUTH2_VALIDATOR_CLASS": "oauth.server.HubOAuth2Validator",
    "ACCESS_TOKEN_GENERATOR": "oauth.server.access_token_generator",
    # Only a SHA-256 checksum of each access token is stored (RFC 9700); it needs no grace period.
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    # Every RFC 9700 recommendation is enforced (no implicit or password grant, no plain PKCE, no
    # token in a query string, `iss` in authorization responses, refresh-token replay revokes the
    # family) but one: loopback redirect URIs are plain http (RFC 8252), which the toolkit can
    # only allow for every host; oauth.redirect_uris.redirect_uri_problem allows it for loopback
    # addresses only, and oauth2_provider.W008 is silenced below for that reason.
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_REFRESH_TOKEN": True,
    "COMPLIANT_BCP_RFC9700_PKCE_REQUIRED": True,
    "PKCE_REQUIRED": True,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https", "http"],
    # Any port on http://localhost as on 127.0.0.1 and [::1] (RFC 8252 section 7.3): Claude Code
    # registers localhost and listens on whichever port is free.
    "ALLOW_LOCALHOST_LOOPBACK": True,
    # MCP clients sign themselves in (mcp_remote, oauth/server.py): the authorization code
    # grant, clients registered on the fly (RFC 7591) or by their metadata document's URL.
    "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
    "OAUTH2_GRANT_TYPES_SUPPORTED": [
        "authorization_code",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:device_code",
    ],
    "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "DCR_ENABLED": True,
    "DCR_REGISTRATION_PERMISSION_CLASSES": ("oauth2_provider.dcr.AllowAllDCRPermission",),
    "DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600,
    "CIMD_ENABLED": True,
    "CIMD_METADATA_FETCHER": "oauth.clients.HubMetadataFetcher",
    "OAUTH2_PROTECTED_RESOURCE_NAME": "ltm hub",
}
if LTM_EXTERNAL_URL:
    # The metadata documents name the hub as links do (core.links): the issuer (and the endpoint
    # URLs built on it) and /mcp as the protected resource, which the audience check compares.
    OAUTH2_PROVIDER["OIDC_ISS_ENDPOINT"] = LTM_EXTERNAL_URL
    OAUTH2_PROVIDER["OAUTH2_PROTECTED_RESOURCE_IDENTIFIER"] = LTM_EXTERNAL_URL + "/mcp"
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]
# /mcp (mcp_remote): the largest request body it reads. A save carries a packet of up to 32 KiB,
# which a client may send with every non-ASCII character escaped.
LTM_MCP_MAX_REQUEST_BYTES = env.int("LTM_MCP_MAX_REQUEST_BYTES", default=128 * 1024)
# Tests only: a certificate authority file whose https://127.0.0.1 client metadata documents the
# hub fetches (oauth.clients.HubMetadataFetcher). Empty: never from a loopback address.
CIMD_LOOPBACK_CA_FILE = ""
