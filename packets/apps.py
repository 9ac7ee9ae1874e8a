from django.apps import AppConfig


class PacketsConfig(AppConfig):
    name = "packets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.signals import user_deleting
        from packets import selectors, services, shares
        from teams.signals import packets_readable, sharing_narrowed

        user_deleting.connect(services.packets_hand_to_teams, dispatch_uid="packets-hand-to-teams")
        sharing_narrowed.connect(shares.shares_prune, dispatch_uid="packets-shares-prune")
        packets_readable.connect(selectors.packet_ids_readable, dispatch_uid="packets-readable")

        # Register the Celery tasks in every process, not only in workers: services enqueue them
        # by name, and in eager mode (development, tests) the web process runs them itself.
        from packets import scan_tasks, tasks  # noqa: F401
