from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "teams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Register the Celery tasks in every process, not only in workers: services enqueue them
        # by name, and in eager mode (development, tests) the web process runs them itself.
        from teams import tasks  # noqa: F401
