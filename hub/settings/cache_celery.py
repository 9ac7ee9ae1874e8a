"""Redis (environment.py), when set, is both the cache and the Celery broker. Unset: local-memory
cache and tasks run eagerly, in-process."""

from .environment import REDIS_URL, env

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "hub.backends.cache.FailOpenRedisCache",
            "LOCATION": REDIS_URL,
            # Redis away or paused must not take sign-in down with it: a cache call gives up
            # after half a second and counts as a miss (so rate limits let requests through until
            # Redis is back; redis-py reconnects by itself).
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5, "IGNORE_EXCEPTIONS": True},
        }
    }
else:
    CACHES = {"default": env.cache_url_config("locmemcache://")}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE = {}
# OAuth (oauth.tasks): expired device grants and expired OAuth tokens leave the database every hour.
CELERY_BEAT_SCHEDULE["purge-expired-oauth"] = {
    "task": "accounts.tasks.purge_expired_oauth",
    "schedule": 3600.0,
}
# Work queued for after a commit waits in the database's outbox (core.outbox) until it is queued;
# what its process never queued (it died between the commit and the queue) a sweep queues: beat
# every minute, each worker as it starts and, without a broker (nothing else would), a thread of
# each web process (hub/wsgi.py). The test settings turn the thread off: tests sweep themselves.
CELERY_BEAT_SCHEDULE["outbox-sweep"] = {"task": "core.tasks.outbox_sweep", "schedule": 60.0}
LTM_OUTBOX_WEB_SWEEP = not REDIS_URL
