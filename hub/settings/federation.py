"""Federation (federation/): this hub's identity and key, and which other hubs it talks to."""

from django.core.exceptions import ImproperlyConfigured

from .cache_celery import CELERY_BEAT_SCHEDULE
from .environment import BASE_DIR, REDIS_URL, env

# off (the default): no packet leaves for another hub and the inbox refuses every message;
# allowlist: only the hubs of LTM_FEDERATION_PEERS; open: any hub but those of LTM_FEDERATION_BLOCK.
LTM_FEDERATION = env("LTM_FEDERATION", default="off")
if LTM_FEDERATION not in ("off", "allowlist", "open"):
    raise ImproperlyConfigured(f"LTM_FEDERATION is off, allowlist or open; got {LTM_FEDERATION!r}")
# Hubs, as origins or host[:port], comma separated ("https://hub-b.example,hub-c.example:8443").
LTM_FEDERATION_PEERS = env.list("LTM_FEDERATION_PEERS", default=[])
LTM_FEDERATION_BLOCK = env.list("LTM_FEDERATION_BLOCK", default=[])
# Development only: hosts reached over plain http and on loopback or private addresses (the
# outbound guard refuses those otherwise), as names, addresses or networks.
LTM_FEDERATION_ALLOW_HOSTS = env.list("LTM_FEDERATION_ALLOW_HOSTS", default=[])
# The hub's Ed25519 private key(s) in PEM (`\n` may stand for line breaks): the first signs, every
# one is published, so the next key is published beside the old before it signs. Or a file of them
# (LTM_HUB_KEY_FILE). `make run` makes a development one (manage.py ltm_hub_key).
LTM_HUB_KEY = env("LTM_HUB_KEY", default="").replace("\\n", "\n")
LTM_HUB_KEY_FILE = env("LTM_HUB_KEY_FILE", default="")
if not LTM_HUB_KEY and LTM_HUB_KEY_FILE:
    LTM_HUB_KEY = (BASE_DIR / LTM_HUB_KEY_FILE).read_text()
# The name the identity document gives; empty: the host.
LTM_HUB_NAME = env("LTM_HUB_NAME", default="")
# Seconds another hub has to answer a call.
LTM_FEDERATION_TIMEOUT = env.float("LTM_FEDERATION_TIMEOUT", default=10.0)
# Who sends messages to other hubs: the Celery worker ("worker", with a broker) or a thread of
# the web process ("web", the embedded default), never the request that shared.
LTM_FEDERATION_SENDER = env("LTM_FEDERATION_SENDER", default="worker" if REDIS_URL else "web")
if LTM_FEDERATION_SENDER not in ("worker", "web"):
    raise ImproperlyConfigured(f"LTM_FEDERATION_SENDER is worker or web; got {LTM_FEDERATION_SENDER!r}")

# Beat queues the messages whose retry fell due.
CELERY_BEAT_SCHEDULE["federation-messages-due"] = {"task": "federation.tasks.messages_sweep", "schedule": 10.0}
