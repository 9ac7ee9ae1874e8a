"""What the whole-hub tests (hub/tests) share: the repository's root and the environment of a
deployment here; the loopback TCP proxy (tcp_proxy.py) and the Go client's calls (go_client.py)
beside it."""

import configparser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A deployment's environment, as `manage.py check --deploy` and the production settings read it,
# with nothing else of the test run's.
PRODUCTION = {
    "PATH": "/usr/bin:/bin",
    "DJANGO_SETTINGS_MODULE": "hub.settings.production",
    "SECRET_KEY": "a-long-random-production-key-" + "x" * 40,
    "ALLOWED_HOSTS": "hub.example.com",
    "DATABASE_URL": "postgres://ltm@db.invalid:5432/ltm",
    "REDIS_URL": "redis://redis.invalid:6379/0",
}


def root_packages() -> tuple[str, ...]:
    """The hub's packages, as .importlinter lists them (the CLI's `ltm` aside)."""
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    return tuple(name for name in config["importlinter"]["root_packages"].split() if name != "ltm")
