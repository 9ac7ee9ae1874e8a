"""The hub as a WSGI application (web.py serves it): Django's, warmed up as the worker process
loads it (hub/warm_up.py) unless settings.LTM_WARM_UP is off."""

import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.production")

SWEEP_SECONDS = 60.0  # as beat's, in settings.CELERY_BEAT_SCHEDULE


def build_application():
    django_app = get_wsgi_application()
    if settings.LTM_OUTBOX_WEB_SWEEP:
        # No broker, so no beat or worker: the web process sweeps the outbox itself (core.outbox).
        from core.outbox import sweep_in_background

        sweep_in_background(SWEEP_SECONDS)
    if settings.LTM_WEBHOOK_SENDER == "web":
        # Nor a worker to send webhooks: a thread of each web process does (webhooks.sender).
        from webhooks.sender import start

        start()
    if settings.LTM_FEDERATION_SENDER == "web":
        # Nor a worker to send to other hubs: what a restart left pending goes now (federation.sender).
        from federation.sender import wake

        wake()
    return django_app


application = build_application()

# granian loads this module in each worker after forking it (gunicorn and runserver too): the
# worker warms up here, before its first request.
if settings.LTM_WARM_UP:
    from hub.warm_up import warm_up

    warm_up(application)
