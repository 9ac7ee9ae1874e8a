from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The shared web core every app may use: errors and their HTTP mapping, parsers, middleware,
    links, ids, dashboard helpers and template tags, admin mixins, site-wide views."""

    name = "core"

    def ready(self):
        from django.core.signals import request_finished, request_started

        from core import checks, give_way  # noqa: F401 (checks registers the hub's deploy checks)

        # Which threads are answering a request, for the threads that give way to them.
        request_started.connect(give_way.request_started, dispatch_uid="core-give-way-started")
        request_finished.connect(give_way.request_finished, dispatch_uid="core-give-way-finished")
