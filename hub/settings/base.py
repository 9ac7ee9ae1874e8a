"""Settings shared by every environment, read from the environment with django-environ.

local.py (manage.py), test.py (pytest) and production.py (wsgi, asgi, Celery, Docker) build on
this module and set what differs: DEBUG, SECRET_KEY, password hashing, secure cookies. Unset,
the shared variables describe one laptop: SQLite in the project folder, local-memory cache,
Celery tasks run eagerly in the web process, console mail.

This module holds the site itself (apps, middleware, templates, static files, logging); each
other topic has its module, gathered at the end.
"""

from .environment import *  # noqa: F403
from .environment import BASE_DIR, env

# Only local.py turns it on.
DEBUG = False

# Production requires ALLOWED_HOSTS; elsewhere the hub answers on the loopback names.
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Behind a reverse proxy that sets X-Forwarded-Proto / X-Forwarded-Host, set
# LTM_TRUST_PROXY_HEADERS=1 so that links the hub builds use the public scheme and host.
LTM_TRUST_PROXY_HEADERS = env.bool("LTM_TRUST_PROXY_HEADERS", default=False)
if LTM_TRUST_PROXY_HEADERS:
    USE_X_FORWARDED_HOST = True
    # Also what makes HSTS and the HTTPS redirect (production) see a request the proxy received
    # over TLS as secure.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Redoc's files, served by the hub itself (no CDN)
    "oauth2_provider",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "csp",
    "axes",
    "core",
    "manual",
    "connect",
    "accounts",
    "oauth",
    "teams",
    "packets",
    "webhooks",
    "federation",
    # Above every app, imported by none: metrics, readiness, the request log, backup and restore.
    "ops",
]

MIDDLEWARE = [
    # Every answer, the wire API's too, carries its request id and is counted (and logged when
    # LTM_REQUEST_LOG is on).
    "core.request_id.RequestId",
    "ops.middleware.RequestMetrics",
    "core.middleware.CollapseApiLeadingSlashes",
    # The wire API (/v1) leaves here for API_MIDDLEWARE below; pages go on.
    "core.middleware.ApiMiddleware",
    "core.middleware.RejectNulCharacters",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: it turns a lockout into its 429 page.
    "axes.middleware.AxesMiddleware",
]

# What a request for the wire API runs instead of the rest of MIDDLEWARE (core.middleware.ApiMiddleware;
# the pages under /v1 keep MIDDLEWARE): the same NUL check, Django's security headers (nosniff,
# HSTS and the https redirect in production), its host check and Content-Length, and the site's
# framing and content policies as constant headers. Sessions, CSRF, messages, allauth, CSP's
# per-answer policy and django-axes are for pages: /v1 authenticates with bearer tokens
# (oauth.authentication) in CSRF-exempt views and never checks a password. The API's chain is
# built beside MIDDLEWARE's (core.middleware.ApiHandler); neither setting changes at run time.
API_MIDDLEWARE = [
    "core.middleware.RejectNulCharacters",
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SitePolicy",
]

# A web or Celery worker builds what its first requests would (URLs, templates, validators, the
# database connection) as it starts, then freezes its objects out of the garbage collector's
# full collections (hub/warm_up.py). The test settings turn it off: tests import hub.wsgi.
LTM_WARM_UP = env.bool("LTM_WARM_UP", default=True)

# Content-Security-Policy (django-csp) on every answer: only the hub's own static files run or
# style a page, no inline script or style anywhere (Django's admin needs none either), no
# framing. The public /p/ pages tighten it further (packets/publishing/views.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'none'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'"],
        "connect-src": ["'self'"],
        "form-action": ["'self'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
    }
}

ROOT_URLCONF = "hub.urls"
WSGI_APPLICATION = "hub.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ops.context_processors.version",
            ],
        },
    },
]


LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# One module per topic, each reading its own variables.
from .api import *  # noqa: E402, F403
from .cache_celery import *  # noqa: E402, F403
from .database import *  # noqa: E402, F403
from .federation import *  # noqa: E402, F403
from .identity import *  # noqa: E402, F403
from .mail import *  # noqa: E402, F403
from .oauth import *  # noqa: E402, F403
from .operations import *  # noqa: E402, F403
from .packets import *  # noqa: E402, F403
from .sign_in import *  # noqa: E402, F403
from .webhooks import *  # noqa: E402, F403

# A sign-in through the operator's OpenID Connect provider posts a form that ends there (identity.py).
CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"] += LTM_OIDC_FORM_ACTION  # noqa: F405
