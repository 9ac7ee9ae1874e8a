"""The hub as a WSGI application (web.py serves it): Django's, with the lean lane (core.lean) in
front for the hottest calls of the wire API unless settings.LTM_LEAN_API is off."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.production")


def build_application():
    django_app = get_wsgi_application()
    # Imported once Django is set up: the lane reads the settings and the routes name views.
    from django.conf import settings

    from core.lean import LeanLane
    from packets.api_urls import lean_routes

    return LeanLane(django_app, lean_routes) if settings.LTM_LEAN_API else django_app


application = build_application()
