"""A 201 is a promise: on SQLite every connection the hub opens syncs the WAL at each commit
(synchronous=FULL), unless LTM_SQLITE_SYNCHRONOUS=normal trades that away. Read back from live
connections opened in fresh processes: one a request opens (a push, through the test client, with
the production settings) and one a management command opens."""

import json
import os
import subprocess
import sys

import pytest
from django.db import connection

from hub.testing import ROOT

FULL, NORMAL = 2, 1  # what PRAGMA synchronous answers

PUSH = """
import json, django
django.setup()
from django.db import connection
from django.test import Client
from accounts.services import api_token_create, user_upsert
from packets.testing import packet_v02

alice, _ = user_upsert(username="alice", password="correct-horse-battery")
token = api_token_create(actor=alice, name="laptop")[1]
connection.close()  # the request opens its own
seen = set()

def read_back(execute, sql, params, many, context):
    seen.add(context["connection"].connection.execute("PRAGMA synchronous").fetchone()[0])
    return execute(sql, params, many, context)

with connection.execute_wrapper(read_back):
    answer = Client().post(
        "/v1/packets", json.dumps(packet_v02()), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
print(json.dumps({"status": answer.status_code, "synchronous": sorted(seen)}))
"""

COMMAND = (
    "from django.db import connection\n"
    "with connection.cursor() as cursor:\n"
    "    print(cursor.execute('PRAGMA synchronous').fetchone()[0], cursor.execute('PRAGMA journal_mode').fetchone()[0])"
)


def _sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's synchronous pragma; PostgreSQL's settings are the deploy check's (test_deploy_checks)")


def _environment(database_url: str, synchronous: str | None, **more) -> dict:
    environment = {"PATH": os.environ.get("PATH", ""), "DATABASE_URL": database_url, **more}
    if synchronous is not None:
        environment["LTM_SQLITE_SYNCHRONOUS"] = synchronous
    return environment


@pytest.mark.parametrize("synchronous, expected", [(None, FULL), ("full", FULL), ("normal", NORMAL)])
@pytest.mark.django_db(transaction=True)
def test_a_push_answered_201_was_written_on_a_connection_that_syncs_each_commit(synchronous, expected, tmp_path):
    _sqlite_only()
    database = tmp_path / "hub.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(database)])  # the test database's schema, in a file
    environment = _environment(
        f"sqlite:///{database}",
        synchronous,
        DJANGO_SETTINGS_MODULE="hub.settings.production",
        SECRET_KEY="durable-test",
        ALLOWED_HOSTS="testserver",
        SECURE_COOKIES="0",
    )
    result = subprocess.run(
        [sys.executable, "-c", PUSH], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"status": 201, "synchronous": [expected]}


@pytest.mark.parametrize("synchronous, expected", [(None, FULL), ("normal", NORMAL)])
def test_a_management_command_opens_its_connection_the_same_way(synchronous, expected, tmp_path):
    _sqlite_only()
    environment = _environment(f"sqlite:///{tmp_path / 'hub.sqlite3'}", synchronous)  # manage.py's local settings
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", COMMAND],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(expected), "wal"]


def test_the_tests_own_connection_syncs_each_commit(db):
    _sqlite_only()
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone()[0] == FULL
