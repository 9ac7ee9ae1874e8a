"""Development on one machine: manage.py (`make run`) and `make worker`/`make beat` use these.

Unset, the shared variables of base.py give SQLite in the project folder, console mail, a
local-memory cache and eager Celery tasks; REDIS_URL and DATABASE_URL switch to the services.
"""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="dev-only-insecure-key-do-not-use-in-production")

# The hub's own 404 page instead of Django's technical one, which DEBUG would show for every
# missing page (core/views.py, HubNotFoundPages); the rest of DEBUG's help stays.
MIDDLEWARE = [*MIDDLEWARE, "core.views.HubNotFoundPages"]

# `make run`: webhooks may call receivers on this machine (a script listening on localhost).
LTM_WEBHOOK_ALLOW_HOSTS = env.list("LTM_WEBHOOK_ALLOW_HOSTS", default=["localhost", "127.0.0.0/8", "::1"])

# `make run`: other hubs on this machine (a second `make run` on another port) are reached over
# http, and the hub signs with the development key `make run` wrote (LTM_HUB_KEY_FILE).
LTM_FEDERATION_ALLOW_HOSTS = env.list("LTM_FEDERATION_ALLOW_HOSTS", default=["localhost", "127.0.0.0/8", "::1"])
