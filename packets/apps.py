from django.apps import AppConfig


class PacketsConfig(AppConfig):
    name = "packets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # The hooks of the apps below (accounts, teams) and of the packet itself (packets.signals),
        # answered here, where every part of packets may be named.
        from accounts.signals import user_deleting
        from packets import selectors, services
        from packets.search import meaning, queue
        from packets.sharing import services as sharing
        from packets.signals import packet_pushed
        from teams.signals import packets_readable, sharing_narrowed

        user_deleting.connect(services.packets_hand_to_teams, dispatch_uid="packets-hand-to-teams")
        sharing_narrowed.connect(sharing.shares_prune, dispatch_uid="packets-shares-prune")
        packets_readable.connect(selectors.packet_ids_readable, dispatch_uid="packets-readable")
        packet_pushed.connect(queue.index_after_push, dispatch_uid="packets-search-index")
        packet_pushed.connect(meaning.embed_after_push, dispatch_uid="packets-search-vectors")

        # Register the Celery tasks in every process, not only in workers: services enqueue them
        # by name, and in eager mode (development, tests) the web process runs them itself.
        from packets.scan import tasks as scan_tasks  # noqa: F401
        from packets.search import tasks as search_tasks  # noqa: F401
        from packets.sharing import tasks as sharing_tasks  # noqa: F401
