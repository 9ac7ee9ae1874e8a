"""The wire API (/v1): Django REST framework and its OpenAPI description (drf-spectacular)."""

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["oauth.authentication.BearerAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.authentication.TokenScopeAllowsMethod",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.JsonAnswers",
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "core.api.exception_handler",
    "UNAUTHENTICATED_USER": None,
    # drf-spectacular's own; the errors every operation shares come from a postprocessing hook
    # (core.openapi.add_shared_errors), not from an override of its private methods.
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

# The OpenAPI description of /v1, served at /v1/openapi.json and /v1/docs (drf-spectacular).
SPECTACULAR_SETTINGS = {
    "TITLE": "ltm hub API",
    "DESCRIPTION": 'The ltm wire protocol (/v1) as this hub speaks it. Every error body is `{"error": message}`.',
    "VERSION": "0.2",
    # 3.1: its schemas are JSON Schema 2020-12, the dialect of the packet schemas it embeds.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SCHEMA_PATH_PREFIX": "/v1",
    "REDOC_DIST": "SIDECAR",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # readyz reports the database and the cache with the same three states: one enum.
    "ENUM_NAME_OVERRIDES": {
        "DependencyStateEnum": "ops.serializers.DEPENDENCY_STATES",
        # A delivery's state, a webhook's or a message to another hub's: one enum.
        "DeliveryStateEnum": "webhooks.models.DELIVERY_STATES",
    },
    # The errors every /v1 operation shares (before any hook adds paths), the OAuth metadata
    # documents and client registration (the toolkit's views, not DRF's), then the limits
    # the web server (granian, web.py) answers for on every operation.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "core.openapi.add_shared_errors",
        "oauth.openapi.add_oauth_paths",
        "ops.openapi.add_metrics_path",
        "core.openapi.add_server_limits",
    ],
}
