from django.apps import AppConfig


class PacketsConfig(AppConfig):
    name = "packets"
    default_auto_field = "django.db.models.BigAutoField"
