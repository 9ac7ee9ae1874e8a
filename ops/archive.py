"""The backup file: one zip holding a JSON Lines part per table and a manifest.

    manifest.json       what the file holds: the hub's version and commit, the database it came
                        from, the migrations its schema had run, and per table its model, columns,
                        row count and the SHA-256 of its part
    tables/<model>.jsonl  one row a line: a JSON array of the row's column values, in the
                        manifest's column order, as the database returned them (instants in
                        RFC 3339 with microseconds, binary as base64, JSON columns as JSON)

Zip, because a part is written as it is read (a tar needs each member's size first) and the
manifest, written last, is found by name. ops.backup writes it; ops.restore reads it and trusts
nothing in it until every part's count and checksum agree.
"""

import base64
import contextlib
import datetime
import decimal
import hashlib
import json
import uuid
import zipfile

import orjson
from django.core.management.base import CommandError
from django.db import OperationalError

FORMAT = "ltm-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"


class BackupError(Exception):
    """A backup that cannot be written, or a file that will not be restored: the message says why."""


@contextlib.contextmanager
def as_command_errors(prefix: str = ""):
    """What ltm_backup and ltm_restore print for a refusal, or a database that stopped answering."""
    try:
        yield
    except OperationalError as exc:
        # The web's bound on a statement (DB_STATEMENT_TIMEOUT) holds for the commands too.
        raise CommandError(f"{prefix}{exc}; for a big hub on PostgreSQL, run with DB_STATEMENT_TIMEOUT=0") from None
    except BackupError as exc:
        raise CommandError(f"{prefix}{exc}") from None


def part_name(label: str) -> str:
    return f"tables/{label}.jsonl"


def _default(value):
    if isinstance(value, bytes | memoryview | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    raise TypeError(f"a {type(value).__name__} in a row has no JSON form")


def encode_row(values) -> bytes:
    return orjson.dumps(values, default=_default) + b"\n"


class PartWriter:
    """Writes one table's part into the zip, counting its rows and hashing its bytes as they go."""

    def __init__(self, archive: zipfile.ZipFile, label: str):
        self.name = part_name(label)
        entry = zipfile.ZipInfo(self.name, date_time=datetime.datetime.now().timetuple()[:6])
        entry.compress_type = archive.compression
        self.stream = archive.open(entry, "w", force_zip64=True)
        self.digest = hashlib.sha256()
        self.rows = 0

    def write(self, values) -> None:
        line = encode_row(values)
        self.digest.update(line)
        self.stream.write(line)
        self.rows += 1

    def close(self) -> dict:
        self.stream.close()
        return {"part": self.name, "rows": self.rows, "sha256": self.digest.hexdigest()}

    def abandon(self) -> None:
        """After a failure: the zip can only be closed (and then removed) once the part is."""
        try:
            self.stream.close()
        except (OSError, ValueError):
            pass  # the disk that failed the write may fail this too; the file is removed anyway


def open_backup(path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise BackupError(f"{path} is not a whole ltm backup (truncated, or another kind of file): {exc}") from None


def read_manifest(archive: zipfile.ZipFile) -> dict:
    try:
        manifest = json.loads(archive.read(MANIFEST))
    except KeyError:
        raise BackupError("the file has no manifest.json: not an ltm backup") from None
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise BackupError(f"the manifest cannot be read: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError("manifest.json does not describe an ltm backup")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BackupError(
            f"the backup's format is version {manifest.get('format_version')!r}; this hub reads version {FORMAT_VERSION}"
        )
    return manifest


def read_rows(archive: zipfile.ZipFile, table: dict):
    """The rows of one part, each a list of column values; the caller checks the digest."""
    with archive.open(table["part"]) as stream:
        for line in stream:
            yield orjson.loads(line)


def check_parts(archive: zipfile.ZipFile, manifest: dict) -> None:
    """Every part the manifest names is there, whole, with its row count and checksum: read once,
    before anything is written."""
    named = set()
    for table in manifest["tables"]:
        named.add(table["part"])
        digest, rows = hashlib.sha256(), 0
        try:
            with archive.open(table["part"]) as stream:
                for line in stream:
                    digest.update(line)
                    rows += 1
        except KeyError:
            raise BackupError(f"{table['part']} is missing from the file") from None
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise BackupError(f"{table['part']} cannot be read whole (truncated or damaged): {exc}") from None
        if digest.hexdigest() != table["sha256"]:
            raise BackupError(f"{table['part']} does not match its checksum: the file was changed or damaged")
        if rows != table["rows"]:
            raise BackupError(f"{table['part']} holds {rows} rows; the manifest says {table['rows']}")
    extra = {name for name in archive.namelist() if name != MANIFEST} - named
    if extra:
        raise BackupError(f"the file holds parts its manifest does not name: {', '.join(sorted(extra))}")


def version_tuple(version: str) -> tuple:
    """`0.9.0` → (0, 9, 0); the parts that are not numbers count as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in str(version).split("."))
