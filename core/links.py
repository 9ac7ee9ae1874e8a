"""Absolute links the hub hands out (invite URLs, publish pages, the device-flow page).

The base is LTM_EXTERNAL_URL when set; else the request's own scheme and host, which Django
takes from X-Forwarded-Proto / X-Forwarded-Host only when LTM_TRUST_PROXY_HEADERS is on.
"""

from django.conf import settings


def external_url(request, path: str) -> str:
    """`path` (starting with "/") as an absolute URL of this hub."""
    if settings.LTM_EXTERNAL_URL:
        return settings.LTM_EXTERNAL_URL + path
    return request.build_absolute_uri(path)


def hub_url(request) -> str:
    """This hub's base URL, as `ltm auth <url>` should name it (no trailing slash)."""
    return external_url(request, "/").rstrip("/")
