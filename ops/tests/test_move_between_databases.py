"""A populated hub on SQLite, backed up, restored on PostgreSQL, backed up there and restored on
SQLite again: every packet pulls byte-identical, the old personal and device-flow tokens work,
invites, shares, findings, the team and its log are intact. Each step runs in a process of its
own on its own database, as an operator runs the commands (ops/testing.py)."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from core.testing import skip_unless_services

ROOT = Path(settings.BASE_DIR)


def postgresql_server() -> str:
    """The server the suite's PostgreSQL runs use (DATABASE_URL), or LTM_TEST_POSTGRESQL_URL."""
    for url in (os.environ.get("LTM_TEST_POSTGRESQL_URL", ""), os.environ.get("DATABASE_URL", "")):
        if url.startswith(("postgres://", "postgresql://")):
            return url.rsplit("/", 1)[0]
    skip_unless_services("moving between databases needs PostgreSQL: DATABASE_URL=postgres://... (as CI)")
    return ""


@pytest.fixture
def fresh_postgresql():
    server = postgresql_server()
    name = f"ltm_ops_move_{os.getpid()}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    yield f"{server}/{name}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def steps(database_url: str, *steps: str) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",
        "ALLOWED_HOSTS": "testserver",
    }
    env.pop("REDIS_URL", None)  # tasks run in the process; nothing here needs the broker
    done = subprocess.run(
        [sys.executable, "-m", "ops.testing", *steps], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]


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
