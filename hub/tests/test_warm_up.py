"""A worker process warms up before its first request and freezes what it holds out of the
garbage collector's full collections (hub/warm_up.py), and on SQLite the search index follows the
pushes in the background instead of inside one of them (packets/search/queue.py).

Both in processes of their own, with the production settings, as a deployment runs them: what the
WSGI module does when a worker loads it, and the real server (`python web.py`, granian, two
workers) reporting each worker's warm-up in its log at INFO.
"""

import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from bench.live_hub import hub
from hub.testing import ROOT
from ltm.protocol.packet import example_packet

# More than Python and Django alone hold once loaded: what the hub's URLconf, views, templates and
# validators add.
LOADED_HUB = 50_000


def production(database: Path, **more) -> dict:
    return {
        "DJANGO_SETTINGS_MODULE": "hub.settings.production",
        "SECRET_KEY": "test-only",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_COOKIES": "0",  # plain http on loopback
        "DATABASE_URL": f"sqlite:///{database}",
        "REDIS_URL": None,
        "DEBUG": None,
        **more,
    }


def environment(variables: dict) -> dict:
    merged = {**os.environ, **variables}
    return {name: value for name, value in merged.items() if value is not None}


PROBE = """
import gc, sys
import hub.wsgi
print(gc.get_freeze_count(), "hub.urls" in sys.modules)
"""


def load_the_application(variables: dict) -> tuple[int, bool, str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=environment(variables),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    frozen, urls = done.stdout.split()
    return int(frozen), urls == "True", done.stderr


def test_loading_the_application_warms_the_worker_up_and_freezes_what_it_holds(tmp_path):
    frozen, urls_loaded, log = load_the_application(production(tmp_path / "hub.sqlite3"))
    assert frozen > LOADED_HUB
    assert urls_loaded  # the URLconf, which no request has asked for yet
    assert "warmed up in" in log


def test_ltm_warm_up_0_leaves_it_to_the_first_requests(tmp_path):
    frozen, urls_loaded, log = load_the_application(production(tmp_path / "hub.sqlite3", LTM_WARM_UP="0"))
    assert frozen == 0 and not urls_loaded
    assert "warmed up" not in log


def manage(variables: dict, *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=environment(variables),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def push(port: int, token: str, packet_id: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/packets",
        data=json.dumps(dict(example_packet(), id=packet_id)).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status


def waiting_for_the_index(database: Path) -> int:
    with sqlite3.connect(database) as connection:
        return connection.execute("SELECT count(*) FROM packets_search_waiting").fetchone()[0]


def test_the_servers_workers_warm_up_and_the_search_index_follows_the_pushes(tmp_path):
    database = tmp_path / "hub.sqlite3"
    variables = production(database)
    manage(variables, "migrate", "--noinput", "-v0")
    manage(variables, "ltm_user", "ada")
    token = manage(variables, "ltm_token", "ada")
    output = tmp_path / "output.log"
    with open(output, "wb") as log, hub(workers=2, env=variables, stdout=log, stderr=subprocess.STDOUT) as (_, port):
        assert [push(port, token, f"01WARMUP{number:018d}") for number in range(3)] == [201] * 3
        # Nothing else runs here: no search, and far fewer than a batch.
        deadline = time.monotonic() + 10
        while waiting_for_the_index(database) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert waiting_for_the_index(database) == 0
    assert output.read_text().count("warmed up in") == 2  # each worker, before it served


def test_each_celery_worker_process_warms_up(monkeypatch, settings):
    """hub/celery.py: Celery sends worker_process_init in each worker process it forks."""
    from celery.signals import worker_process_init

    import hub.celery  # noqa: F401 - connects the receiver, as `celery -A hub worker` does
    import hub.warm_up

    called = []
    monkeypatch.setattr(hub.warm_up, "warm_up", lambda *arguments: called.append(arguments))
    settings.LTM_WARM_UP = True
    worker_process_init.send(sender=None)
    assert called == [()]  # no WSGI application there
