"""`manage.py check --deploy` on the production settings, as an operator runs it."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCTION = {
    "PATH": "/usr/bin:/bin",
    "DJANGO_SETTINGS_MODULE": "hub.settings.production",
    "SECRET_KEY": "a-long-random-production-key-" + "x" * 40,
    "ALLOWED_HOSTS": "hub.example.com",
    "DATABASE_URL": "postgres://ltm@db.invalid:5432/ltm",
    "REDIS_URL": "redis://redis.invalid:6379/0",
}


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
    return set(re.findall(r"^\?: \(([\w.]+)\)", result.stderr, re.MULTILINE))


def test_a_deployment_over_tls_passes_every_deploy_check():
    assert deploy_warnings(PRODUCTION) == set()


def test_without_redis_too_the_login_lockout_counting_in_the_database():
    assert deploy_warnings({key: value for key, value in PRODUCTION.items() if key != "REDIS_URL"}) == set()


def test_a_plain_http_stack_is_told_what_it_gives_up():
    # compose's local stack (SECURE_COOKIES=0) serves plain http: cookies that travel without TLS
    # and no redirect to https are real weaknesses there, so they stay visible, not silenced.
    assert deploy_warnings({**PRODUCTION, "SECURE_COOKIES": "0"}) == {"security.W008", "security.W012", "security.W016"}
