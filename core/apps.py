from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The shared web core every app may use: errors and their HTTP mapping, parsers, middleware,
    links, ids, dashboard helpers and template tags, admin mixins, site-wide views."""

    name = "core"

    def ready(self):
        from core import checks  # noqa: F401 (registers the hub's deploy checks)
