from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from webhooks import receivers

        receivers.connect()
        # Register the Celery tasks in every process, not only in workers: services enqueue them
        # by name, and in eager mode (tests) the process runs them itself.
        from webhooks import tasks  # noqa: F401
