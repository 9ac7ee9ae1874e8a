"""A populated hub on SQLite, backed up, restored on PostgreSQL, backed up there and restored on
SQLite again: every packet pulls byte-identical, the old personal and device-flow tokens work,
invites, shares, findings, the team and its log are intact. Each step runs in a process of its
own on its own database, as an operator runs the commands (ops/testing.py)."""

import json
import zipfile

from ops.testing import steps


def test_sqlite_to_postgresql_and_back(tmp_path, fresh_postgresql):
    first, second = f"sqlite:///{tmp_path / 'first.sqlite3'}", f"sqlite:///{tmp_path / 'second.sqlite3'}"
    expected, to_postgresql, to_sqlite = tmp_path / "expected.json", tmp_path / "one.zip", tmp_path / "two.zip"

    steps(first, "migrate", f"populate:{expected}", f"backup:{to_postgresql}")
    steps(
        fresh_postgresql, f"restore:{to_postgresql}", f"verify:{expected}", f"backup:{to_sqlite}", f"accept:{expected}"
    )
    steps(second, f"restore:{to_sqlite}", f"verify:{expected}", f"accept:{expected}")

    # Each engine gave the other every row of every table as it had them (JSON columns compared as
    # values: PostgreSQL's jsonb orders their keys its own way).
    with zipfile.ZipFile(to_postgresql) as one, zipfile.ZipFile(to_sqlite) as two:
        assert one.namelist() == two.namelist()
        for part in one.namelist():
            if part.startswith("tables/"):
                assert rows(one, part) == rows(two, part), part


def rows(archive, part) -> list:
    return [json.loads(line) for line in archive.read(part).splitlines()]
