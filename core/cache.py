"""The Redis cache backend: django-redis, failing open and fast.

With IGNORE_EXCEPTIONS, django-redis answers a cache call it could not send to Redis as a miss
(`get` gives the default, `incr` None), so rate limits let requests through while Redis is away.
Two things it leaves to us:

- `add` gives None too, which callers read as "the key exists": allauth's rate limiter takes a
  lock with `add` and, never getting it, answers 429 to every sign-in. Here an `add` that could
  not reach Redis counts as done.
- Every call waits out the socket timeout, and one sign-in makes a dozen calls. After a failed
  call, Redis is not asked again for BREAK_SECONDS: the calls fail at once, then one call tries
  again (redis-py reconnects by itself).
"""

import time

from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted

BREAK_SECONDS = 5.0


class FailOpenRedisCache(RedisCache):
    down_until = 0.0  # one per process: every thread's cache object reads and sets it

    @property
    def client(self):
        if time.monotonic() < FailOpenRedisCache.down_until:
            raise ConnectionInterrupted(connection=None)
        return _Watched(super().client)

    def add(self, *args, **kwargs):
        added = super().add(*args, **kwargs)
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
