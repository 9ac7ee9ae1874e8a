"""The hub's own deploy checks (`manage.py check --deploy`): whether a write answered 201 survives
a power cut or an OS crash on the database as configured (docs/production.md, Durability)."""

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.db import DatabaseError, connection

SQLITE_NORMAL = Warning(
    "LTM_SQLITE_SYNCHRONOUS=normal: a power loss or OS crash may roll back writes already answered 201",
    hint="Unset it (full) unless losing the last writes to a power cut is acceptable for this hub.",
    id="core.W001",
)


def _postgresql_off(setting: str, loss: str) -> Warning:
    return Warning(
        f"PostgreSQL reports {setting} = off: {loss}",
        hint=f"Set {setting} = on (postgresql.conf, or ALTER DATABASE/ROLE ... SET for the hub's).",
        id="core.W002" if setting == "fsync" else "core.W003",
    )


@register(Tags.database, deploy=True)
def durable_writes(app_configs=None, **kwargs):
    """Warn when the database may lose a commit the hub answered for: SQLite told to sync less
    (LTM_SQLITE_SYNCHRONOUS), or a reachable PostgreSQL whose connection reports fsync or
    synchronous_commit off (the session's values, which the hub's connections have)."""
    if connection.vendor == "sqlite":
        return [SQLITE_NORMAL] if settings.LTM_SQLITE_SYNCHRONOUS == "normal" else []
    if connection.vendor != "postgresql":
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW fsync")
            fsync = cursor.fetchone()[0]
            cursor.execute("SHOW synchronous_commit")
            synchronous_commit = cursor.fetchone()[0]
    except DatabaseError:
        return []  # not reachable: nothing to read, and other checks say nothing of it either
    warnings = []
    if fsync == "off":
        warnings.append(_postgresql_off("fsync", "a power loss or OS crash may corrupt the database"))
    if synchronous_commit == "off":
        warnings.append(
            _postgresql_off("synchronous_commit", "a crash may lose the last transactions already answered 201")
        )
    return warnings
