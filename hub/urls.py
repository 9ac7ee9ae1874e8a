"""Every URL of the hub. Each app keeps its wire routes in `api_urls.py` (/v1 and /oauth) and its
pages in `urls.py`, with their full paths; this file only mounts them."""

from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularRedocView

from core import views
from mcp_remote.views import endpoint as mcp_endpoint

# /v1/docs only: Redoc writes its styles as <style> elements (without them it shows "Something went
# wrong"), draws icons from data: URLs and runs its search in a worker made from a blob: URL.
REDOC_CSP_UPDATE = {"style-src": ["'unsafe-inline'"], "img-src": ["data:"], "worker-src": ["blob:"]}

urlpatterns = [
    # The ltm wire API (section 3 of the protocol) and OAuth (section 6).
    path("v1/healthz", views.healthz, name="healthz"),
    path("status", views.status, name="status"),
    path("", include("ops.urls")),
    path("", include("packets.api_urls")),
    path("", include("teams.api_urls")),
    path("", include("oauth.api_urls")),
    path("", include("accounts.api_urls")),
    path("", include("webhooks.api_urls")),
    path("", include("federation.api_urls")),
    # OAuth for clients that sign themselves in (metadata, consent, registration), and the hub
    # as a remote MCP server.
    path("", include("oauth.toolkit_urls")),
    path("mcp", mcp_endpoint, name="mcp"),
    # The OpenAPI description of /v1 (drf-spectacular) and its docs page: Redoc from our own static
    # files, in a template that loads nothing from elsewhere, under the policy REDOC_CSP_UPDATE
    # loosens for this page alone.
    path("v1/openapi.json", SpectacularJSONAPIView.as_view(), name="openapi-schema"),
    path(
        "v1/docs",
        csp_update(REDOC_CSP_UPDATE)(
            SpectacularRedocView.as_view(url_name="openapi-schema", template_name="docs/redoc.html")
        ),
        name="openapi-docs",
    ),
    # The manual (docs/, built by MkDocs), and the Python client's page and wheel.
    path("", include("manual.urls")),
    path("", include("connect.urls")),
    # Pages for people.
    path("accounts/", include("allauth.urls")),
    path("admin/", admin.site.urls),
    path("", include("oauth.urls")),
    path("", include("accounts.urls")),
    path("", include("teams.urls")),
    path("", include("packets.urls")),
    path("", include("webhooks.urls")),
    # Last: anything else under /v1 or /oauth is a JSON 404, also with DEBUG on (Django's debug page
    # would answer in HTML).
    re_path(r"^(v1|oauth)/", csrf_exempt(views.not_found)),
]

handler400 = "core.views.bad_request"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
