"""The URLs of allauth's OpenID Connect provider (same paths and names), to this package's views."""

from allauth.socialaccount import app_settings
from django.urls import include, path, re_path

from accounts.oidc import views

urlpatterns = [
    re_path(
        r"^(?P<provider_id>[^/]+)/",
        include(
            [
                path("login/", views.login, name="openid_connect_login"),
                path("login/callback/", views.callback, name="openid_connect_callback"),
            ]
        ),
    )
]
urlpatterns = [path(f"{app_settings.OPENID_CONNECT_URL_PREFIX}/", include(urlpatterns))]
