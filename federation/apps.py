from django.apps import AppConfig


class FederationConfig(AppConfig):
    name = "federation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from federation import receivers

        receivers.connect()
        # Register the Celery tasks in every process: services enqueue them by name.
        from federation import tasks  # noqa: F401
