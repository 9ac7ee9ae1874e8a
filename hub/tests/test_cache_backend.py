"""The Redis cache fails open (a call it cannot make counts as a miss, an `add` as done) and fast
(after a failure, Redis is left alone for a few seconds)."""

import socket
import time

import pytest

from hub.backends.cache import BREAK_SECONDS, FailOpenRedisCache

TIMEOUT = 0.2


@pytest.fixture
def silent_redis():
    """A port that takes connections and never answers: a Redis that stopped."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as server:
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"


@pytest.fixture
def cache(monkeypatch, silent_redis):
    monkeypatch.setattr(FailOpenRedisCache, "down_until", 0.0)
    return FailOpenRedisCache(
        silent_redis,
        {
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": TIMEOUT, "SOCKET_TIMEOUT": TIMEOUT, "IGNORE_EXCEPTIONS": True},
        },
    )


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def test_calls_redis_cannot_answer_count_as_misses_and_an_add_as_done(cache, monkeypatch):
    assert cache.get("attempts", 7) == 7
    monkeypatch.setattr(FailOpenRedisCache, "down_until", 0.0)
    assert cache.add("lock", True) is True  # what lets allauth's rate limiter through
    monkeypatch.setattr(FailOpenRedisCache, "down_until", 0.0)
    assert cache.incr("attempts") is None


def test_the_first_call_waits_out_the_timeout_and_the_next_ones_do_not(cache):
    _, first = timed(lambda: cache.get("attempts", 0))
    assert first >= TIMEOUT * 0.9
    assert FailOpenRedisCache.down_until > time.monotonic() + BREAK_SECONDS - 1

    (value, added), later = timed(lambda: (cache.get("attempts", 0), cache.add("lock", True)))

    assert (value, added) == (0, True)
    assert later < TIMEOUT / 2


def test_once_the_break_is_over_redis_is_asked_again(cache, monkeypatch):
    cache.get("warm-up")
    monkeypatch.setattr(FailOpenRedisCache, "down_until", time.monotonic() - 1)

    _, took = timed(lambda: cache.get("attempts", 0))

    assert took >= TIMEOUT * 0.9  # it waited for the socket again
