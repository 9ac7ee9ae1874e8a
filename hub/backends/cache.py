"""The Redis cache backend: django-redis, failing open and fast.

With IGNORE_EXCEPTIONS, django-redis answers a cache call it could not send to Redis as a miss
(`get` gives the default, `incr` None), so rate limits let requests through while Redis is away.
Three things it leaves to us:

- `add` gives None too, which callers read as "the key exists": allauth's rate limiter takes a
  lock with `add` and, never getting it, answers 429 to every sign-in. Here an `add` that could
  not reach Redis counts as done.
- Every call waits out the socket timeout, and one sign-in makes a dozen calls. After a failed
  call, Redis is not asked again for BREAK_SECONDS: the calls fail at once, then one call tries
  again (redis-py reconnects by itself).
- A command sent to a Redis that stalls is carried out when Redis wakes, after its sender gave
  up. allauth's rate limiter locks a count (`add` of `<key>:lock`) for the few milliseconds
  between reading and writing it, but asks Redis to keep the lock 10 s in case its holder dies;
  such a lock, landing late, is released by nobody and every sign-in from that address would be
  refused (429) until it expired. Here the lock lives RATE_LIMIT_LOCK_SECONDS, less than the
  second allauth waits for a lock, so a late one can only delay a sign-in.
"""

import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted

BREAK_SECONDS = 5.0
RATE_LIMIT_LOCK_SECONDS = 0.5


def is_rate_limit_lock(key: str) -> bool:
    """Whether `add` is allauth's rate limiter taking its lock (allauth.core.internal.ratelimit's
    cache_lock: `<count key>:lock`, held CACHE_LOCK_TIMEOUT seconds). allauth has no setting for
    that lifetime, so the key is recognised here (pinned by hub/tests/test_library_pins.py)."""
    return key.startswith("allauth:rl:") and key.endswith(":lock")


class FailOpenRedisCache(RedisCache):
    down_until = 0.0  # one per process: every thread's cache object reads and sets it

    @property
    def client(self):
        if time.monotonic() < FailOpenRedisCache.down_until:
            raise ConnectionInterrupted(connection=None)
        return _Watched(super().client)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None, client=None):
        if is_rate_limit_lock(key):
            timeout = RATE_LIMIT_LOCK_SECONDS
        added = super().add(key, value, timeout=timeout, version=version, client=client)
        return True if added is None else added


class _Watched:
    """django-redis's client, noting a failed call so the next ones skip Redis for a while."""

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        def call(*args, **kwargs):
            try:
                return attribute(*args, **kwargs)
            except ConnectionInterrupted:
                FailOpenRedisCache.down_until = time.monotonic() + BREAK_SECONDS
                raise

        return call
