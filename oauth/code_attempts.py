"""A limit on wrong device-code entries, per person and per address, counted in the cache.

Past either limit every entry is refused before the code is looked up, so a guess can neither
succeed nor be confirmed. With Redis (production) the counts are shared by every web process.
"""

from datetime import timedelta

from django.core.cache import cache

from core.errors import TooManyRequests

WINDOW = timedelta(hours=1)
LIMIT_PER_USER = 10
LIMIT_PER_ADDRESS = 30


def _keys(*, user, address: str) -> list[tuple[str, int]]:
    return [
        (f"device-code-misses:user:{user.pk}", LIMIT_PER_USER),
        (f"device-code-misses:addr:{address}", LIMIT_PER_ADDRESS),
    ]


def refuse_when_over_limit(*, user, address: str) -> None:
    if any((cache.get(key) or 0) >= limit for key, limit in _keys(user=user, address=address)):
        minutes = int(WINDOW.total_seconds() // 60)
        raise TooManyRequests(f"Too many wrong codes. Wait up to {minutes} minutes, then try again.")


def record_miss(*, user, address: str) -> None:
    window = int(WINDOW.total_seconds())
    for key, _ in _keys(user=user, address=address):
        cache.add(key, 0, window)  # starts the window on the first miss
        try:
            cache.incr(key)
        except ValueError:  # the window ended between add and incr
            cache.set(key, 1, window)
