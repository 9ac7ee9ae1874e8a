"""Public pages of published packets, mounted at /p/. Slugs are URL-safe base64 ([-A-Za-z0-9_])."""

from django.urls import path

from packets import public_views

urlpatterns = [
    path("<slug:slug>.json", public_views.packet_json, name="packet-public-json"),
    path("<slug:slug>", public_views.packet_page, name="packet-public"),
]
