"""`manage.py check --deploy` on the production settings, as an operator runs it."""

import re
import subprocess
import sys
from unittest import mock

import pytest
from django.db import OperationalError, connection

from core import checks
from core.testing import require_postgresql
from hub.testing import PRODUCTION, ROOT


def deploy_warnings(environment: dict) -> set[str]:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "ERRORS:" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr  # a check that crashed reports no warning either
    return set(re.findall(r"^\?: \(([\w.]+)\)", result.stderr, re.MULTILINE))


def test_a_deployment_over_tls_passes_every_deploy_check():
    assert deploy_warnings(PRODUCTION) == set()


def test_without_redis_too_the_login_lockout_counting_in_the_database():
    assert deploy_warnings({key: value for key, value in PRODUCTION.items() if key != "REDIS_URL"}) == set()


def test_a_plain_http_stack_is_told_what_it_gives_up():
    # `make stack` on loopback (SECURE_COOKIES=0) serves plain http: cookies that travel without TLS
    # and no redirect to https are real weaknesses there, so they stay visible, not silenced.
    assert deploy_warnings({**PRODUCTION, "SECURE_COOKIES": "0"}) == {"security.W008", "security.W012", "security.W016"}


def test_an_embedded_hub_that_syncs_less_than_every_commit_is_told_what_it_risks(tmp_path):
    embedded = {**PRODUCTION, "DATABASE_URL": f"sqlite:///{tmp_path / 'hub.sqlite3'}"}
    assert deploy_warnings(embedded) == set()
    assert deploy_warnings({**embedded, "LTM_SQLITE_SYNCHRONOUS": "normal"}) == {"core.W001"}
    assert not (tmp_path / "hub.sqlite3").exists()  # read from the settings: no database opened


class _Answers:
    """A cursor whose SHOW answers come from a dict."""

    def __init__(self, answers):
        self.answers, self.last = answers, None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql):
        self.last = sql.removeprefix("SHOW ")

    def fetchone(self):
        return (self.answers[self.last],)


def _postgresql_answering(answers):
    return mock.Mock(vendor="postgresql", cursor=lambda: _Answers(answers))


def test_a_postgresql_reporting_fsync_or_synchronous_commit_off_is_warned_about():
    """Unit test: the answers are simulated (a server's fsync cannot be changed from a session);
    the real server's session setting is the next test's."""
    cases = [
        ({"fsync": "on", "synchronous_commit": "on"}, []),
        ({"fsync": "on", "synchronous_commit": "local"}, []),  # still waits for the local disk
        ({"fsync": "off", "synchronous_commit": "on"}, ["core.W002"]),
        ({"fsync": "off", "synchronous_commit": "off"}, ["core.W002", "core.W003"]),
    ]
    for answers, expected in cases:
        with mock.patch.object(checks, "connection", _postgresql_answering(answers)):
            assert [warning.id for warning in checks.durable_writes()] == expected, answers


def test_a_postgresql_that_does_not_answer_is_left_to_the_other_checks():
    unreachable = mock.Mock(vendor="postgresql", cursor=mock.Mock(side_effect=OperationalError("no route")))
    with mock.patch.object(checks, "connection", unreachable):
        assert checks.durable_writes() == []


@pytest.mark.django_db
def test_the_check_reads_synchronous_commit_of_the_session_the_hub_uses():
    """On the real PostgreSQL: the check's connection is the hub's own (django.db.connection), so
    what a session says (SET, or the role's or the database's ALTER ... SET) is what it reads."""
    require_postgresql("reads PostgreSQL's own settings")
    assert checks.durable_writes() == []
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")  # undone with the test's transaction
    assert [warning.id for warning in checks.durable_writes()] == ["core.W003"]


@pytest.mark.django_db
def test_check_deploy_against_the_real_postgresql_finds_it_durable():
    require_postgresql("reads PostgreSQL's own settings")
    db = connection.settings_dict
    url = (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )
    assert deploy_warnings({**PRODUCTION, "DATABASE_URL": url}) == set()
