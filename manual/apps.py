from django.apps import AppConfig


class ManualConfig(AppConfig):
    """The manual at /docs/: the MkDocs site built from docs/, served by the hub from its own files."""

    name = "manual"
