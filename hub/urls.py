"""Every URL of the hub, by app. Each app keeps its own url modules; this file only mounts them."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from core import views

urlpatterns = [
    # The ltm wire API (section 3 of the protocol) and OAuth (section 6).
    path("v1/healthz", views.healthz, name="healthz"),
    path("v1/", include("packets.urls")),
    path("v1/", include("teams.urls_api")),
    path("oauth/", include("accounts.urls_oauth")),
    path("", include("accounts.urls_device")),
    # Pages for people.
    path("accounts/", include("allauth.urls")),
    path("p/", include("packets.urls_public")),
    path("admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("", include("accounts.urls_claim")),
    path("", include("teams.urls")),
    path("", include("packets.urls_dashboard")),
    # Last: anything else under /v1 or /oauth is a JSON 404, also with DEBUG on (Django's debug page
    # would answer in HTML).
    re_path(r"^(v1|oauth)/", csrf_exempt(views.not_found)),
]

handler400 = "core.views.bad_request"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
