"""Outgoing webhooks (webhooks/): who the hub may call, how it keeps their secrets, who sends."""

from django.core.exceptions import ImproperlyConfigured

from .cache_celery import CELERY_BEAT_SCHEDULE
from .environment import REDIS_URL, env

# Hosts a webhook may reach although they resolve to a loopback, private, link-local or other
# non-public address (core.outbound refuses those): names, addresses or networks, comma separated
# ("hooks.internal,10.0.0.0/8"). local.py and test.py allow loopback.
LTM_WEBHOOK_ALLOW_HOSTS = env.list("LTM_WEBHOOK_ALLOW_HOSTS", default=[])
# LTM_WEBHOOK_ONLY_LISTED=1: webhooks reach the hosts above and no other (checks/fuzz.py sets it).
LTM_WEBHOOK_ONLY_LISTED = env.bool("LTM_WEBHOOK_ONLY_LISTED", default=False)
# The keys that encrypt webhook secrets in the database (webhooks.signing), comma separated: the
# first encrypts, each decrypts (put a new one first to rotate). Unset: the SECRET_KEY.
LTM_WEBHOOK_ENCRYPTION_KEYS = env.list("LTM_WEBHOOK_ENCRYPTION_KEYS", default=[])
# Seconds a receiver has to answer.
LTM_WEBHOOK_TIMEOUT = env.float("LTM_WEBHOOK_TIMEOUT", default=15.0)
# Who sends deliveries (webhooks.emit): the Celery worker ("worker", with a broker) or a thread of
# each web process ("web", the embedded default without Redis).
LTM_WEBHOOK_SENDER = env("LTM_WEBHOOK_SENDER", default="worker" if REDIS_URL else "web")
if LTM_WEBHOOK_SENDER not in ("worker", "web"):
    raise ImproperlyConfigured(f"LTM_WEBHOOK_SENDER is worker or web; got {LTM_WEBHOOK_SENDER!r}")

# Beat queues the deliveries whose retry fell due (and any a dead worker left), and forgets the
# deliveries older than 30 days once a day.
CELERY_BEAT_SCHEDULE["webhook-deliveries-due"] = {
    "task": "webhooks.tasks.deliveries_sweep",
    "schedule": env.float("LTM_WEBHOOK_SWEEP_SECONDS", default=5.0),
}
CELERY_BEAT_SCHEDULE["webhook-deliveries-prune"] = {"task": "webhooks.tasks.deliveries_prune", "schedule": 86400.0}
