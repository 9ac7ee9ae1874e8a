"""Running the hub as a service (the ops app): its version, logs, metrics and readiness."""

from django.core.exceptions import ImproperlyConfigured

from hub import __version__

from .environment import env

# The hub's version (hub/__init__.py) and the commit it was built from: /v1/healthz, the footer,
# the metrics' build info. The Docker image sets LTM_COMMIT; elsewhere git is asked (ops.build).
LTM_VERSION = __version__
LTM_COMMIT = env("LTM_COMMIT", default="")

# Logs: LOG_FORMAT=plain (the default, for people) or json (one object a line, for a log
# pipeline: core.logs.JsonLines). Both carry the request id (core.request_id) and mask secrets
# (core.logs): invite, claim and device codes and tokens appear in paths, `Not Found: /v1/invites/<code>`.
# The web server's own lines have the same masking and format (web.py).
LOG_FORMAT = env("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT is plain or json; got {LOG_FORMAT!r}")
# One line per request (ops.middleware): on by default with JSON logs, where it replaces the web
# server's access log (which knows no request id, route or user).
LTM_REQUEST_LOG = env.bool("LTM_REQUEST_LOG", default=LOG_FORMAT == "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "mask_secrets": {"()": "core.logs.MaskSecrets"},
        "request_id": {"()": "core.request_id.RequestContext"},
    },
    "formatters": {
        "plain": {"format": "%(levelname)s %(request_id)s %(name)s: %(message)s"},
        "json": {"()": "core.logs.JsonLines"},
        # runserver's own request lines, as before: they already say what was asked.
        "server": {"format": "%(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["request_id", "mask_secrets"],
            "formatter": LOG_FORMAT,
        },
        "server": {
            "class": "logging.StreamHandler",
            "filters": ["request_id", "mask_secrets"],
            "formatter": "server" if LOG_FORMAT == "plain" else "json",
        },
    },
    "loggers": {
        "django.server": {"handlers": ["server"], "level": "INFO", "propagate": False},
        # django-axes notes every sign-in at INFO; lockouts (WARNING) are what an operator needs.
        "axes": {"level": "WARNING"},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}
# The Celery worker logs through the same handlers (its own would know neither the format, the
# masking nor the request id its tasks run for).
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# /metrics (ops.views): answered only to `Authorization: Bearer <LTM_METRICS_TOKEN>`; unset, the
# page does not exist. Prometheus's scrape config names the token (docs/production.md).
LTM_METRICS_TOKEN = env("LTM_METRICS_TOKEN", default="")

# /v1/readyz counts the built manual among what the hub needs (`make docs`; the image builds it).
# The test settings leave it out: tests build the manual only where they test it.
LTM_READYZ_MANUAL = env.bool("LTM_READYZ_MANUAL", default=True)
