"""The stack check's steps for running the hub as a service (checks/stack_check.py): readiness,
metrics scraped from one web process that count what the other answered, and the restore drill,
which the soak (checks/soak.py) also runs while its traffic goes on; the webhook and federation
steps (checks/stack_webhooks.py, checks/stack_federation.py)."""

import json
import re
import subprocess
import sys
import time
import urllib.parse
import zipfile
from pathlib import Path

import psycopg
import stack_federation
import stack_webhooks
from stack import ROOT
from stack_http import Http, check, new_packet


def restore_drill(stack) -> str:
    """Back up the running stack, restore the file into a fresh database and let the restore check
    every count; the database is dropped afterwards."""
    drill = stack.log_dir / "drill.zip"
    started = time.monotonic()
    stack.manage("ltm_backup", "--output", str(drill))
    backed_up = time.monotonic() - started
    with zipfile.ZipFile(drill) as file:
        manifest = json.loads(file.read("manifest.json"))
    packets = next(table["rows"] for table in manifest["tables"] if table["model"] == "packets.Packet")
    check(packets > 0, "the backup holds no packet")
    target = _scratch_database(stack.database_url)
    try:
        done = subprocess.run(
            [sys.executable, "manage.py", "ltm_restore", str(drill)],
            cwd=ROOT,
            env={**stack.env, "DATABASE_URL": target},
            capture_output=True,
            text=True,
            timeout=600,
        )
        check(done.returncode == 0, f"the restore failed: {done.stdout[-1000:]}{done.stderr[-2000:]}")
        check("every count matches" in done.stdout, f"the restore did not check its counts: {done.stdout}")
    finally:
        _drop(target)
    return (
        f"backed up {packets} packets while serving ({backed_up:.1f}s, {drill.stat().st_size // 1024} KiB), "
        f"restored into an empty database, every count checked ({time.monotonic() - started - backed_up:.1f}s)"
    )


def _scratch_database(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "sqlite":
        return f"sqlite:///{parts.path}-restored"
    name = f"{parts.path.lstrip('/')}_restored"
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return parts._replace(path=f"/{name}").geturl()


def _drop(url: str) -> None:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "sqlite":
        Path(parts.path).unlink(missing_ok=True)
        return
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{parts.path.lstrip("/")}" WITH (FORCE)')


def pushes_counted(text: str) -> float:
    """ltm_http_requests_total for pushes answered 201, from a scrape's text: one series, which
    Prometheus would read as it is (a series sent twice is kept once, not added up)."""
    line = re.compile(
        r'^ltm_http_requests_total\{(?=[^}]*method="POST")(?=[^}]*route="v1/packets")(?=[^}]*status="201")'
    )
    rows = [row for row in text.splitlines() if line.match(row)]
    check(len(rows) <= 1, f"the pushes' series is sent {len(rows)} times: {rows}")
    return float(rows[0].rsplit(" ", 1)[1]) if rows else 0.0


class Operations:
    """Steps of the Journey (checks/stack_check.py): self.stack, self.a, self.b, self.api, and the
    second stack the federation step starts, self.peer."""

    def readiness_and_metrics(self):
        ready = Http().expect(200, "GET", self.a + "/v1/readyz")
        check(ready["migrations"] == "ok" and ready["cache"] == "ok", f"readyz: {ready}")
        Http().expect(401, "GET", self.a + "/metrics")
        scrape = Http(self.stack.env["LTM_METRICS_TOKEN"])
        before = pushes_counted(scrape.expect(200, "GET", self.a + "/metrics"))
        self.api.expect(201, "POST", self.b + "/v1/packets", body=new_packet("counted on web.2"))
        on_a, on_b = (scrape.expect(200, "GET", url + "/metrics") for url in (self.a, self.b))
        check(pushes_counted(on_a) == before + 1, "web.1's /metrics does not count a push web.2 answered")
        check(pushes_counted(on_a) == pushes_counted(on_b), "the two web processes report different counts")
        for needed in ('ltm_dependency_up{dependency="database"} 1.0', 'ltm_dependency_up{dependency="redis"} 1.0'):
            check(needed in on_a, f"/metrics lacks {needed}")
        check("ltm_build_info{" in on_a and "ltm_celery_queue_length" in on_a, "/metrics lacks build info or queue")
        return f"readyz 200; /metrics 401 without the token; a push on web.2 counted on web.1 ({before + 1:.0f})"

    def webhook_worker_killed_mid_retry(self):
        return stack_webhooks.worker_killed_mid_retry(self)

    def federation(self):
        return stack_federation.shared_across_hubs(self)

    def restore_drill(self):
        # A packet of its own, so that the step also runs alone (--only restore_drill).
        self.api.expect(201, "POST", self.a + "/v1/packets", body=new_packet())
        return restore_drill(self.stack)
