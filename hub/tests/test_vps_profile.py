"""The $5 VPS profile: the variables the manual gives are those CI's check starts the stack with
(checks/vps_check.py), and web.py turns them into one worker process of threads."""

import re
import sys

import web
from hub.testing import ROOT

sys.path.insert(0, str(ROOT / "checks"))
from vps_check import PROFILES  # noqa: E402


def test_the_manual_gives_the_variables_the_check_runs_with():
    manual = (ROOT / "docs/production.md").read_text()
    section = manual.split("### The $5 VPS profile", 1)[1]
    exported = dict(re.findall(r"\b([A-Z_]+)=(\S+)", section.split("```sh", 1)[1].split("```", 1)[0]))
    assert {key: exported[key] for key in PROFILES["vps"]} == PROFILES["vps"]
    assert "REDIS_URL" not in exported and exported["DATABASE_URL"].startswith("sqlite:")


def test_web_py_runs_the_profile_as_one_worker_of_threads():
    server = web.server(PROFILES["vps"])
    assert server.workers == 1
    assert server.blocking_threads == int(PROFILES["vps"]["WEB_THREADS"]) > 1
