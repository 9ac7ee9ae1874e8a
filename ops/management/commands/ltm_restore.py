"""manage.py ltm_restore FILE: a backup back into an empty database (ops.restore)."""

import time

from django.core.management.base import BaseCommand

from ops.archive import as_command_errors
from ops.restore import backup_restore


class Command(BaseCommand):
    help = (
        "Restore a backup written by ltm_backup into an empty database (SQLite or PostgreSQL, whichever "
        "DATABASE_URL names), check every count, then migrate it to this hub's schema."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the backup file")
        parser.add_argument("--database", default="default", help="the database alias to restore into")

    def handle(self, *args, file, database, **options):
        started = time.monotonic()
        with as_command_errors("nothing was restored: "):
            manifest = backup_restore(source=file, using=database)
        rows = sum(table["rows"] for table in manifest["tables"])
        self.stdout.write(
            f"Restored {rows} rows of {len(manifest['tables'])} tables from hub {manifest['hub_version']} "
            f"({manifest['database']}, {manifest['created_at']}); every count matches. "
            f"{time.monotonic() - started:.1f}s"
        )
