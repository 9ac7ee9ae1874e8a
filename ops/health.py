"""What the hub depends on, asked now: /v1/readyz answers from it and /metrics reports it."""

import functools

from django.conf import settings
from django.db import DatabaseError, connection
from django.db.migrations.loader import MigrationLoader
from django.db.migrations.recorder import MigrationRecorder

from core.models import OutboxTask
from manual.views import is_built

OK = "ok"
UNAVAILABLE = "unavailable"
NOT_CONFIGURED = "not configured"
UNAPPLIED = "unapplied"
MISSING = "missing"


def database_state() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return UNAVAILABLE
    return OK


def cache_state() -> str:
    """Redis, when REDIS_URL configures it (the local-memory cache of one process cannot be down)."""
    if "Redis" not in settings.CACHES["default"]["BACKEND"]:
        return NOT_CONFIGURED
    from django_redis import get_redis_connection

    try:
        get_redis_connection("default").ping()
    except Exception:  # redis-py's ConnectionError, TimeoutError and the like
        return UNAVAILABLE
    return OK


@functools.cache
def migrations_on_disk() -> frozenset:
    """Every migration this code holds (read once: the code does not change while it runs)."""
    return frozenset(MigrationLoader(None, ignore_no_migrations=True).graph.nodes)


def unapplied_migrations() -> list[str]:
    """The migrations of this code the database has not run ("app.name"); DatabaseError if the
    database does not answer."""
    applied = set(MigrationRecorder(connection).applied_migrations())
    return sorted(f"{app}.{name}" for app, name in migrations_on_disk() - applied)


def migrations_state() -> str:
    try:
        return UNAPPLIED if unapplied_migrations() else OK
    except DatabaseError:
        return UNAVAILABLE


def manual_state() -> str:
    """The manual (`make docs`, built into the image): /docs/ answers a page saying how to build it
    otherwise, which a deployment should not serve."""
    return OK if is_built() else MISSING


@functools.cache
def _broker():
    import redis

    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=0.5, socket_connect_timeout=0.5)


def queue_lengths() -> dict[str, int]:
    """Tasks waiting in the broker's default queue (Celery on Redis keeps it as a list); nothing
    without a broker (tasks run in the web process) or while it does not answer."""
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://", "unix://")):
        return {}
    queue = getattr(settings, "CELERY_TASK_DEFAULT_QUEUE", "celery")
    try:
        return {queue: int(_broker().llen(queue))}
    except Exception:  # redis-py's ConnectionError, TimeoutError: ltm_dependency_up says so
        return {}


def outbox_backlog() -> int | None:
    try:
        return OutboxTask.objects.count()
    except DatabaseError:
        return None
