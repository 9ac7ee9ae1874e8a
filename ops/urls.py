"""The ops app's routes, with their full paths (hub/urls.py mounts them)."""

from django.urls import path

from ops import views

urlpatterns = [
    path("v1/readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics, name="metrics"),
]
