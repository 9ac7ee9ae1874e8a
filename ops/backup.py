"""`manage.py ltm_backup`: everything the hub keeps, in one file (ops.archive), read from one
consistent snapshot while the hub goes on serving.

Every table of every installed app is in it (accounts with their password hashes, tokens as
stored, OAuth applications and grants, teams, invites, packets, shares, findings, the activity
log, settings, sessions), found from the models Django knows, so a table a later app adds is in
the next backup without a change here. What is not a model (the SQLite search index, PostgreSQL's
search column) the database rebuilds from the rows as they are restored.

The snapshot: PostgreSQL reads in one REPEATABLE READ, READ ONLY transaction (every table as of
its first statement); SQLite in one read transaction, which in WAL mode sees one moment while
writers go on. The file is written under a temporary name beside the output and renamed when
whole: a full disk or any other failure leaves no half file under the name asked for.
"""

import contextlib
import datetime
import os
import zipfile
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.db import connections, transaction
from django.db.migrations.recorder import MigrationRecorder

from ops.archive import FORMAT, FORMAT_VERSION, MANIFEST, BackupError, PartWriter
from ops.build import build_info

CHUNK_ROWS = 2000


def dumped_models(app_registry=apps) -> list:
    """Every model whose rows the database keeps: managed, not a proxy, many-to-many tables
    included, in a stable order."""
    models = [
        model
        for model in app_registry.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    ]
    return sorted(models, key=lambda model: model._meta.label)


def columns_of(model) -> list[str]:
    return [field.attname for field in model._meta.concrete_fields]


@contextlib.contextmanager
def snapshot(connection):
    """One consistent view of every table for the block's reads."""
    if connection.vendor == "postgresql":
        with transaction.atomic(using=connection.alias):
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
        return
    if connection.vendor != "sqlite":
        raise BackupError(f"backups read PostgreSQL or SQLite; this database is {connection.vendor}")
    # A deferred transaction takes no write lock: the hub's writers go on (IMMEDIATE, the
    # connection's own mode, would hold them back for the whole backup).
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("BEGIN DEFERRED")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("ROLLBACK")  # it only read


def backup_write(*, output: Path, using: str = "default") -> dict:
    """Write the backup of database `using` to `output`; returns its manifest."""
    output = Path(output)
    if output.is_dir():
        raise BackupError(f"{output} is a folder; name the file to write")
    if not output.parent.is_dir():
        raise BackupError(f"{output.parent} does not exist")
    partial = output.with_name(f".{output.name}.{os.getpid()}.partial")
    try:
        manifest = _write(partial, connections[using])
        with open(partial, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(partial, output)
    except BaseException as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise BackupError(f"the backup could not be written to {output}: {exc.strerror or exc}") from exc
        raise
    return manifest


def _write(path: Path, connection) -> dict:
    tables = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        with snapshot(connection):
            migrations = sorted(MigrationRecorder(connection).applied_migrations())
            for model in dumped_models():
                tables.append(_write_table(archive, model, connection.alias))
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "hub_version": settings.LTM_VERSION,
            "commit": build_info()["commit"],
            "created_at": datetime.datetime.now(datetime.UTC).isoformat(),
            "database": connection.vendor,
            "migrations": [list(key) for key in migrations],
            "tables": tables,
        }
        archive.writestr(MANIFEST, _json(manifest))
    return manifest


def _write_table(archive, model, using: str) -> dict:
    columns = columns_of(model)
    writer = PartWriter(archive, model._meta.label)
    rows = model._base_manager.using(using).order_by("pk").values_list(*columns)
    try:
        for values in rows.iterator(chunk_size=CHUNK_ROWS):
            writer.write(values)
    except BaseException:
        writer.abandon()
        raise
    return {"model": model._meta.label, "table": model._meta.db_table, "columns": columns, **writer.close()}


def _json(value) -> str:
    import json

    return json.dumps(value, indent=1, sort_keys=True)
