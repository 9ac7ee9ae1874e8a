from django.apps import AppConfig


class PacketsConfig(AppConfig):
    name = "packets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.signals import user_deleting
        from packets import services

        user_deleting.connect(services.packets_hand_to_teams, dispatch_uid="packets-hand-to-teams")
