"""manage.py ltm_backup --output FILE: the whole hub in one file (ops.backup)."""

import time

from django.core.management.base import BaseCommand

from ops.archive import as_command_errors
from ops.backup import backup_write


class Command(BaseCommand):
    help = "Write a backup of the hub's database (a zip of JSON Lines per table and a manifest) to --output."

    def add_arguments(self, parser):
        parser.add_argument(
            "--output", "-o", required=True, help="the file to write (replaced when the backup is whole)"
        )
        parser.add_argument("--database", default="default", help="the database alias to read (default: default)")

    def handle(self, *args, output, database, **options):
        started = time.monotonic()
        with as_command_errors():
            manifest = backup_write(output=output, using=database)
        rows = sum(table["rows"] for table in manifest["tables"])
        self.stdout.write(
            f"Backed up {rows} rows of {len(manifest['tables'])} tables (hub {manifest['hub_version']}, "
            f"{manifest['database']}) to {output} in {time.monotonic() - started:.1f}s"
        )
