"""A process that commits an e-mail invite and dies before its on_commit hook queues the mail: the
mail is not lost. The outbox's row was committed with the invite, and a sweep in another process
sends the mail, once, with a link that works; the code the dead process minted is never in the
database. Real processes on a real database file (SQLite) or the test database (PostgreSQL)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)

COMMIT_AND_DIE = """
import json, os, django
django.setup()
from django.db import transaction
from accounts.services import user_upsert
from teams.services import invite_create
from teams.testing import make_team

alice, _ = user_upsert(username="alice", password="correct-horse-battery")
team = make_team(alice, "alpha")
made = {}

def die():
    # The first hook after the commit: the outbox's own, registered after it, never runs.
    print(json.dumps({"code": made["code"]}), flush=True)
    os._exit(9)

with transaction.atomic():
    transaction.on_commit(die)
    _, made["code"] = invite_create(
        actor=alice, team=team, email="sam@example.org", link=lambda code: f"http://hub.test/v1/invites/{code}"
    )
"""

SWEEP = """
import json, django
django.setup()
from datetime import timedelta
from django.core import mail
from django.utils import timezone
from core.models import OutboxTask
from core.outbox import outbox_sweep

mail.outbox = []
kept = list(OutboxTask.objects.values("task", "args", "kwargs"))
# Its process had GRACE to queue it; this sweep comes later.
queued = outbox_sweep(now=timezone.now() + timedelta(hours=1))
print(json.dumps({"kept": kept, "queued": queued, "mails": [message.body for message in mail.outbox]}))
"""

JOIN = """
import json, sys, django
django.setup()
from accounts.services import user_upsert
from teams.models import Membership
from teams.services import invite_accept

bob, _ = user_upsert(username="bob", password="correct-horse-battery")
invite_accept(code=sys.argv[1], actor=bob)
print(json.dumps(Membership.objects.filter(team__name="alpha", user=bob).exists()))
"""


def _database_url(tmp_path) -> str:
    """A database the subprocesses share with this test: the test database on PostgreSQL; on
    SQLite (whose test database lives in this process's memory) a file copied from it."""
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        return f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    path = tmp_path / "hub.sqlite3"
    with connection.cursor() as cursor:
        cursor.execute("VACUUM INTO %s", [str(path)])
    return f"sqlite:///{path}"


def _run(script: str, database_url: str, *args: str) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",  # tasks run eagerly, in the sweeping process
        "DATABASE_URL": database_url,
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
    }
    return subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )


def test_a_mail_committed_by_a_process_that_died_before_queueing_it_is_sent_once(tmp_path):
    database_url = _database_url(tmp_path)

    died = _run(COMMIT_AND_DIE, database_url)
    assert died.returncode == 9, died.stderr
    minted = json.loads(died.stdout)["code"]

    first = _run(SWEEP, database_url)
    assert first.returncode == 0, first.stderr
    swept = json.loads(first.stdout)
    [kept] = swept["kept"]
    assert kept["task"] == "teams.tasks.send_invite_mail"
    assert minted not in json.dumps(kept)  # the code is a credential: only its hash is stored
    assert swept["queued"] == 1
    [body] = swept["mails"]
    link = next(word for word in body.split() if word.startswith("http://hub.test/v1/invites/"))
    code = link.rsplit("/", 1)[1]
    assert code != minted  # nobody holds the one the dead process minted: a new one replaced it

    again = _run(SWEEP, database_url)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {"kept": [], "queued": 0, "mails": []}

    joined = _run(JOIN, database_url, code)
    assert joined.returncode == 0, joined.stderr
    assert json.loads(joined.stdout) is True
