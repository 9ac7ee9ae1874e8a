"""A worker process warms up before its first request and freezes what it holds out of the
garbage collector's full collections (hub/warm_up.py), and on SQLite the search index follows the
pushes in the background instead of inside one of them, in a file of its own whose lock no push
waits for (packets/search/queue.py, packets/search/sqlite_index.py).

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
import urllib.parse
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


def a_hub_with_ada(tmp_path: Path) -> tuple[Path, dict, str]:
    """A migrated SQLite database with one person: its path, the settings, her token."""
    database = tmp_path / "hub.sqlite3"
    variables = production(database)
    manage(variables, "migrate", "--noinput", "-v0")
    manage(variables, "ltm_user", "ada")
    return database, variables, manage(variables, "ltm_token", "ada")


def wait_until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)


def test_the_servers_workers_warm_up_and_the_search_index_follows_the_pushes(tmp_path):
    database, variables, token = a_hub_with_ada(tmp_path)
    output = tmp_path / "output.log"
    with open(output, "wb") as log, hub(workers=2, env=variables, stdout=log, stderr=subprocess.STDOUT) as (_, port):
        assert [push(port, token, f"01WARMUP{number:018d}") for number in range(3)] == [201] * 3
        # Nothing else runs here: no search, and far fewer than a batch.
        wait_until(lambda: not waiting_for_the_index(database))
        assert waiting_for_the_index(database) == 0
    assert output.read_text().count("warmed up in") == 2  # each worker, before it served


def search(port: int, token: str, words: str) -> list[str]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/search?mode=keyword&q={urllib.parse.quote(words)}",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return sorted(hit["id"] for hit in json.load(answer)["results"])


def test_no_push_waits_for_the_search_indexs_lock_and_a_search_still_finds_every_packet(tmp_path):
    database, variables, token = a_hub_with_ada(tmp_path)
    ids = [f"01INDEXFILE{number:015d}" for number in range(6)]
    with hub(workers=2, env=variables, stdout=subprocess.DEVNULL) as (_, port):
        assert [push(port, token, packet_id) for packet_id in ids[:3]] == [201] * 3
        wait_until(lambda: not waiting_for_the_index(database))
        index = sqlite3.connect(tmp_path / "hub.search.sqlite3", isolation_level=None, timeout=0)
        assert index.execute("SELECT count(*) FROM packets_search_doc").fetchone() == (3,)
        # A batch of the index that takes as long as it likes: the pushes go on meanwhile.
        index.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        assert [push(port, token, packet_id) for packet_id in ids[3:]] == [201] * 3
        assert time.monotonic() - started < 5  # SQLite's busy timeout is 20 s
        index.execute("ROLLBACK")
        assert search(port, token, "forward") == ids  # the last three indexed by the search itself
    with sqlite3.connect(database) as hubs_own:
        tables = hubs_own.execute("SELECT name FROM sqlite_master WHERE name = 'packets_search'").fetchall()
    assert tables == []


def indexed(database: Path) -> int:
    search_file = database.with_name(f"{database.stem}.search{database.suffix}")
    if not search_file.exists():
        return 0
    with sqlite3.connect(search_file) as index:
        return index.execute("SELECT count(*) FROM packets_search_doc").fetchone()[0]


def test_a_worker_builds_a_missing_search_index_before_any_search(tmp_path):
    """After an upgrade, a restore or the search file deleted: built off the requests."""
    database, variables, token = a_hub_with_ada(tmp_path)
    with hub(workers=1, env=variables, stdout=subprocess.DEVNULL) as (_, port):
        assert [push(port, token, f"01REBUILD{number:017d}") for number in range(3)] == [201] * 3
    for leftover in tmp_path.glob("hub.search.sqlite3*"):
        leftover.unlink()
    with hub(workers=1, env=variables, stdout=subprocess.DEVNULL):
        wait_until(lambda: indexed(database) == 3)
        assert indexed(database) == 3


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
