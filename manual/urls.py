"""The manual (docs/, built by MkDocs) at /docs/."""

from django.urls import path, re_path

from manual import views

urlpatterns = [
    path("docs/", views.page, name="docs"),
    re_path(r"^docs/(?P<path>.+)$", views.page, name="docs-file"),
]
