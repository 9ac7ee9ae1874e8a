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

# SECURE_COOKIES=0 lets the dashboard sign in over plain HTTP (a local docker-compose stack only).
SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_CONTENT_TYPE_NOSNIFF = True
