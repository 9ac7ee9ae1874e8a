"""Schemathesis against a live hub: the /v1 API and the OAuth endpoints (the device flow's forms,
client registration, the metadata documents) fuzzed from the hub's own OpenAPI description.

Creates a fresh database (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/ltm_fuzz; it is
dropped first), migrates it, makes a user and a personal API token with manage.py, starts the hub
as production does (web.py: granian) with the production settings on a free loopback port
(checks/fuzz_settings.py: without the per-address limits of the open OAuth endpoints, which would
answer the fuzzer 429 after 20 requests), and runs schemathesis on /v1/openapi.json with that token: every operation
(search in its three modes and a packet's related packets among them), a fixed seed, a bounded number of cases and a time limit. Then it stops the hub, prints the totals and
exits non-zero on any failure or any 5xx in the hub's access log.

    python checks/fuzz.py                            # as CI runs it (after `make test`)
    python checks/fuzz.py --seed 7 --cases 100       # another seed, more cases per operation

A Python script rather than a shell one: it shares the bench's live_hub.hub(), stops the hub
whatever happens, and reads schemathesis' JSON report for the totals.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from stack import ROOT

sys.path.insert(0, str(ROOT))
from bench.live_hub import hub  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/ltm_fuzz"
# What the description promises and the hub must keep: no 5xx, bodies and statuses as described.
CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance"


def fresh_database(url: str) -> None:
    """Drop and create the database of `url` (PostgreSQL), or remove the SQLite file."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        Path(parts.path).unlink(missing_ok=True)
        return
    import psycopg
    from psycopg import sql

    name = parts.path.lstrip("/")
    admin = url[: url.rindex("/") + 1] + "postgres"
    with psycopg.connect(admin.replace("postgres://", "postgresql://", 1), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def manage(env, *args) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def run_schemathesis(port, token, args, scratch) -> int:
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        f"http://127.0.0.1:{port}/v1/openapi.json",
        "--header",
        f"Authorization: Bearer {token}",
        "--checks",
        CHECKS,
        "--max-examples",
        str(args.cases),
        "--seed",
        str(args.seed),
        "--max-time",
        str(args.max_time),
        "--request-timeout",
        "10",
        "--workers",
        "2",
        "--suppress-health-check",
        "all",
        "--report",
        "json",
        "--report-json-path",
        str(scratch / "report.json"),
        "--output-sanitize",
        "true",
    ]
    print("$", " ".join("Authorization: Bearer ***" if token in part else part for part in command), flush=True)
    # In the scratch folder: schemathesis keeps a cache of past failures in its working directory.
    return subprocess.run(command, cwd=scratch).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=20260418, help="schemathesis' random seed (fixed: reproducible)")
    parser.add_argument("--cases", type=int, default=80, help="generated cases per operation and phase")
    parser.add_argument("--max-time", type=int, default=150, help="seconds schemathesis may run (it fuzzes until then)")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="ltm-fuzz-"))
    env = {
        **os.environ,
        "DATABASE_URL": os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
        "DJANGO_SETTINGS_MODULE": "hub.settings.production",
        "SECRET_KEY": "fuzz-only",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_COOKIES": "0",
    }
    env.pop("DEBUG", None)
    fresh_database(env["DATABASE_URL"])
    manage(env, "migrate", "--noinput")
    manage(env, "ltm_user", "fuzz")
    token = manage(env, "ltm_token", "fuzz", "--name", "fuzz")

    log_path = scratch / "hub.log"
    started = time.monotonic()
    with (
        open(log_path, "wb") as log,
        hub(
            workers=2,
            env={**env, "DJANGO_SETTINGS_MODULE": "checks.fuzz_settings", "DEBUG": None},
            log=log_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        ) as (_, port),
    ):
        code = run_schemathesis(port, token, args, scratch)
    return summarise(code, scratch, time.monotonic() - started)


def summarise(code, scratch, seconds) -> int:
    log = (scratch / "hub.log").read_text(errors="replace")
    server_errors = [line for line in log.splitlines() if re.search(r'" 5\d\d ', line)]
    report = json.loads((scratch / "report.json").read_text()) if (scratch / "report.json").exists() else {}
    cases, failures = _totals(report)
    print(
        f"\nfuzz: {cases} cases, {failures} failures, {len(server_errors)} 5xx in the hub's log, "
        f"schemathesis exit {code}, {seconds:.0f} s"
    )
    for line in server_errors[:20]:
        print("  5xx:", line)
    if code or server_errors:
        print(f"logs kept in {scratch}")
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _totals(report) -> tuple[int, int]:
    """(test cases generated, cases with a failure) from schemathesis' JSON report."""
    cases = report.get("test_cases") or {}
    return cases.get("generated", 0), cases.get("with_failures", 0)


if __name__ == "__main__":
    sys.exit(main())
