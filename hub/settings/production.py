"""Deployments: hub/wsgi.py, hub/asgi.py, hub/celery.py, the Docker image and docker-compose.yml
use these. SECRET_KEY and ALLOWED_HOSTS are required; DEBUG stays off."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import STORAGES, env

# A debug page shows settings and code to anyone: DEBUG left on in a deploy's environment stops
# the start instead of being obeyed or silently dropped.
if env.bool("DEBUG", default=False):
    raise ImproperlyConfigured(
        "DEBUG is set in the environment, but the production settings never run in debug mode: "
        "unset DEBUG (hub.settings.local is the development settings module)"
    )
DEBUG = False

# django-environ refuses a missing variable; an empty one is refused here.
SECRET_KEY = env("SECRET_KEY")
if not SECRET_KEY:
    raise ImproperlyConfigured("Set the SECRET_KEY environment variable (it is empty)")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    raise ImproperlyConfigured("Set the ALLOWED_HOSTS environment variable (it is empty)")

# collectstatic writes compressed copies that WhiteNoise serves.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"}}

# SECURE_COOKIES=0 lets the dashboard sign in over plain HTTP (`make stack` on loopback only).
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True

# A deployment serves over TLS (at the hub or at a proxy in front of it). Plain http is
# redirected to https, except the health checks a load balancer or compose asks over plain http
# on the inside. Behind a proxy that terminates TLS, set LTM_TRUST_PROXY_HEADERS=1 so the hub
# sees the proxy's X-Forwarded-Proto (without it every request looks like http and the redirect
# loops). SECURE_SSL_REDIRECT follows SECURE_COOKIES: a plain-http local stack turns both off
# with SECURE_COOKIES=0.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SESSION_COOKIE_SECURE)
# /metrics too, for a Prometheus that scrapes web's port on the inside: a redirect would not keep
# its token from crossing plain http, the token is already sent.
SECURE_REDIRECT_EXEMPT = [r"^v1/healthz$", r"^v1/readyz$", r"^metrics$"]
# HSTS (sent only on answers over https): browsers keep to https for a year, subdomains included.
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [
    *SILENCED_SYSTEM_CHECKS,  # noqa: F405 (base.py's)
    # security.W021 asks for the HSTS `preload` flag. Preloading is a request to browser vendors
    # to hard-code https for the whole registrable domain, slow to undo and only valid on an apex
    # domain; the operator opts in with SECURE_HSTS_PRELOAD=1.
    "security.W021",
]
