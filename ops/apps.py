from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Running the hub as a service: metrics (/metrics), readiness (/v1/readyz), the request log,
    backup and restore (ltm_backup, ltm_restore). It may import every app; none imports it."""

    name = "ops"
    verbose_name = "operations"

    def ready(self):
        from ops import counters  # noqa: F401 (counts what people do, from the apps' signals)
