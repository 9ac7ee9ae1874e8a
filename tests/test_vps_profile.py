"""The $5 VPS profile: the variables the manual gives are those CI's check starts the stack with
(checks/vps_check.py), and gunicorn.conf.py turns them into one process of threads."""

import re
import runpy
import sys

from gunicorn.config import Config

from tests.test_deploy_checks import ROOT

sys.path.insert(0, str(ROOT / "checks"))
from vps_check import PROFILES  # noqa: E402


def test_the_manual_gives_the_variables_the_check_runs_with():
    manual = (ROOT / "docs/production.md").read_text()
    section = manual.split("### The $5 VPS profile", 1)[1]
    exported = dict(re.findall(r"\b([A-Z_]+)=(\S+)", section.split("```sh", 1)[1].split("```", 1)[0]))
    assert {key: exported[key] for key in PROFILES["vps"]} == PROFILES["vps"]
    assert "REDIS_URL" not in exported and exported["DATABASE_URL"].startswith("sqlite:")


def test_web_threads_makes_gunicorn_run_threaded_workers(monkeypatch):
    monkeypatch.setenv("WEB_CONCURRENCY", PROFILES["vps"]["WEB_CONCURRENCY"])
    monkeypatch.setenv("WEB_THREADS", PROFILES["vps"]["WEB_THREADS"])
    read = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    config = Config()
    for name in ("workers", "threads"):
        config.set(name, read[name])
    assert (config.workers, config.threads) == (1, 4)
    assert config.worker_class.__name__ == "ThreadWorker"  # gunicorn's gthread


def test_unset_gunicorn_runs_sync_workers(monkeypatch):
    monkeypatch.delenv("WEB_THREADS", raising=False)
    read = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    config = Config()
    config.set("threads", read["threads"])
    assert config.worker_class.__name__ == "SyncWorker"
