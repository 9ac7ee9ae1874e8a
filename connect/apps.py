from django.apps import AppConfig


class ConnectConfig(AppConfig):
    """How a person connects to this hub: the Python client's wheel and the /client/ page that
    installs it, and the agent lines the home page and /client/ show (the `connect` tag library)."""

    name = "connect"
