"""`manage.py ltm_restore FILE`: a backup (ops.archive) back into an empty database of either
engine; SQLite to PostgreSQL and back is how a hub moves.

Nothing is written until the whole file has been checked: every part's row count and SHA-256,
the hub version that wrote it (not newer than this one) and its migrations (all known to this
code). The database must hold no hub data: either no tables at all (the restore then migrates it
to the backup's schema) or a schema migrated to exactly the backup's point with no rows in the
hub's own apps (a `migrate`d database; the rows migrations make for themselves, such as content
types, are replaced by the backup's).

The rows go in one transaction, table by table, through the models as they were at the backup's
migrations (so an older backup loads into its own schema), with their values prepared by the
fields themselves. Foreign keys are checked at the commit (Django declares them deferrable on
both engines), then each table's count is compared with the manifest's. Last, the database is
migrated to this code's schema, as an upgrade would do.
"""

from pathlib import Path

from django.apps import apps as installed_apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from ops.archive import BackupError, check_parts, open_backup, read_manifest, read_rows, version_tuple
from ops.backup import dumped_models

BATCH_ROWS = 1000


def backup_restore(*, source, using: str = "default", migrate_to_latest: bool = True) -> dict:
    """Restore the backup at `source` into database `using`; returns its manifest."""
    connection = connections[using]
    with open_backup(source) as archive:
        manifest = read_manifest(archive)
        executor = MigrationExecutor(connection)
        backup_migrations = _check_compatible(manifest, executor)
        check_parts(archive, manifest)
        models = _historical_models(executor, backup_migrations)
        fields = _fields_of(manifest, models)
        if _check_empty(connection, backup_migrations):
            executor.migrate(_leaves(executor, backup_migrations))
        _load(archive, manifest, models, fields, connection)
    if migrate_to_latest:
        call_command("migrate", database=using, interactive=False, verbosity=0)
    return manifest


def _check_compatible(manifest: dict, executor) -> set:
    version = manifest.get("hub_version", "")
    if version_tuple(version) > version_tuple(settings.LTM_VERSION):
        raise BackupError(
            f"the backup was written by hub {version}, newer than this hub ({settings.LTM_VERSION}): "
            "restore it with that version or a later one"
        )
    migrations = {tuple(key) for key in manifest["migrations"]}
    unknown = sorted(migrations - set(executor.loader.graph.nodes))
    if unknown:
        names = ", ".join(f"{app}.{name}" for app, name in unknown[:5])
        raise BackupError(f"the backup's schema is newer than this code's (migrations it does not know: {names})")
    return migrations


def hub_models() -> list:
    """The models of the hub's own apps (not Django's or a library's)."""
    base = settings.BASE_DIR.resolve()
    own = [
        config
        for config in installed_apps.get_app_configs()
        if _inside(config.path, base) and "site-packages" not in str(config.path)
    ]
    return [model for config in own for model in config.get_models(include_auto_created=True) if model._meta.managed]


def _inside(path, base) -> bool:
    return Path(path).resolve().is_relative_to(base)


def _check_empty(connection, backup_migrations: set) -> bool:
    """True when the database has no tables (the restore makes the schema); a refusal when it
    holds hub data or a schema at another point than the backup's."""
    tables = set(connection.introspection.table_names())
    if not tables:
        return True
    if MigrationRecorder.Migration._meta.db_table not in tables:
        raise BackupError("the database holds tables but no record of migrations: restore into an empty database")
    for model in hub_models():
        if model._meta.db_table in tables and model._base_manager.using(connection.alias).exists():
            raise BackupError(
                f"the database is not empty ({model._meta.label} has rows): restore into an empty database "
                "(a second restore into the same database is refused)"
            )
    applied = set(MigrationRecorder(connection).applied_migrations())
    if applied != backup_migrations:
        raise BackupError(
            "the database is migrated to another point than the backup "
            f"({len(applied - backup_migrations)} migrations more, {len(backup_migrations - applied)} fewer): "
            "restore into a database with no tables, which the restore migrates itself"
        )
    return False


def _leaves(executor, migrations: set) -> list:
    """Per app, the backup's last migration: the targets that migrate an empty database to it."""
    graph = executor.loader.graph
    return [
        key for key in sorted(migrations) if not any(child.key in migrations for child in graph.node_map[key].children)
    ]


def _historical_models(executor, migrations: set) -> dict:
    state = executor.loader.project_state(nodes=_leaves(executor, migrations), at_end=True)
    return {model._meta.label: model for model in dumped_models(state.apps)}


def _fields_of(manifest: dict, models: dict) -> dict:
    """Per table of the backup, its model's fields in the order of the part's columns."""
    fields = {}
    for table in manifest["tables"]:
        model = models.get(table["model"])
        if model is None:
            raise BackupError(f"the backup holds {table['model']}, which its own migrations do not make")
        by_name = {field.attname: field for field in model._meta.concrete_fields}
        if set(by_name) != set(table["columns"]):
            raise BackupError(f"{table['model']}'s columns in the backup are not those of its schema")
        fields[table["model"]] = [by_name[column] for column in table["columns"]]
    return fields


def _load(archive, manifest: dict, models: dict, fields: dict, connection) -> None:
    tables = manifest["tables"]
    with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
        # Rows that migrations made for themselves (content types, the ltm-cli application) give
        # way to the backup's, which the other rows point to.
        for model in models.values():
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")
        for table in tables:
            _insert(cursor, connection, models[table["model"]], fields[table["model"]], read_rows(archive, table))
        restored = [models[table["model"]] for table in tables]
        for statement in connection.ops.sequence_reset_sql(no_style(), restored):
            cursor.execute(statement)
        for table in tables:
            count = models[table["model"]]._base_manager.using(connection.alias).count()
            if count != table["rows"]:
                raise BackupError(
                    f"{table['model']} holds {count} rows after the restore; the backup has {table['rows']}"
                )
        connection.check_constraints(table_names=[model._meta.db_table for model in restored])


def _insert(cursor, connection, model, fields, rows) -> None:
    quote = connection.ops.quote_name
    statement = (
        f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    batch = []
    for values in rows:
        batch.append([_prepared(field, value, connection) for field, value in zip(fields, values, strict=True)])
        if len(batch) == BATCH_ROWS:
            cursor.executemany(statement, batch)
            batch = []
    if batch:
        cursor.executemany(statement, batch)


def _prepared(field, value, connection):
    """A value as the field itself would write it (its own parsing of the JSON form first). Not
    bulk_create: it would give `auto_now` columns the time of the restore."""
    if value is None:
        return None
    return field.get_db_prep_save(field.to_python(value), connection)
