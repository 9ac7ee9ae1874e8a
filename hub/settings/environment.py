"""What more than one topic of the settings reads: the environment (django-environ), the project
folder, Redis and the hub's public URL."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# The public base URL of the hub (invite links, publish pages, device-flow verification URI).
# Empty: built from the request (and from a trusted proxy's forwarded headers: LTM_TRUST_PROXY_HEADERS in base.py).
LTM_EXTERNAL_URL = env("LTM_EXTERNAL_URL", default="").rstrip("/")

# Redis, when set, is both the cache (rate limits, shared by every web process) and the Celery
# broker (cache_celery.py), and where django-axes counts (sign_in.py). Unset: local-memory cache
# and tasks run eagerly, in-process.
REDIS_URL = env("REDIS_URL", default="")
