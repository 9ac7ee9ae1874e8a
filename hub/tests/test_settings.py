"""Each settings module imported in a fresh process with an environment of our choosing (the test
process's own settings are already loaded and hold the test run's variables)."""

import json
import os
import subprocess
import sys

from hub.testing import ROOT

PROBE = """
import json
import django
from django.conf import settings
django.setup()
db = settings.DATABASES["default"]
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "SESSION_COOKIE_SECURE": settings.SESSION_COOKIE_SECURE,
    "CSRF_COOKIE_SECURE": settings.CSRF_COOKIE_SECURE,
    "PASSWORD_HASHERS": settings.PASSWORD_HASHERS,
    "CELERY_TASK_ALWAYS_EAGER": settings.CELERY_TASK_ALWAYS_EAGER,
    "EMAIL_BACKEND": settings.EMAIL_BACKEND,
    "EMAIL": {name: getattr(settings, name) for name in (
        "EMAIL_HOST", "EMAIL_PORT", "EMAIL_HOST_USER", "EMAIL_HOST_PASSWORD", "EMAIL_USE_TLS", "EMAIL_USE_SSL",
        "EMAIL_FILE_PATH")},
    "CACHE_BACKEND": settings.CACHES["default"]["BACKEND"],
    "CACHE_OPTIONS": settings.CACHES["default"].get("OPTIONS", {}),
    "DB_ENGINE": db["ENGINE"],
    "DB_NAME": str(db["NAME"]),
    "DB_OPTIONS": db.get("OPTIONS", {}),
    "CONN_MAX_AGE": db["CONN_MAX_AGE"],
    "CONN_HEALTH_CHECKS": db["CONN_HEALTH_CHECKS"],
}))
"""

PRODUCTION = {"SECRET_KEY": "a-real-secret", "ALLOWED_HOSTS": "hub.example.org"}


def run_settings(module: str, **env: str) -> subprocess.CompletedProcess:
    """Import `module` in a new interpreter whose environment holds only PATH and `env`."""
    environment = {"PATH": os.environ.get("PATH", ""), "DJANGO_SETTINGS_MODULE": module, **env}
    return subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )


def loaded(module: str, **env: str) -> dict:
    result = run_settings(module, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def refused(module: str, **env: str) -> str:
    """The error that stopped `module` from loading."""
    result = run_settings(module, **env)
    assert result.returncode != 0, f"{module} loaded: {result.stdout}"
    assert "django.core.exceptions.ImproperlyConfigured" in result.stderr, result.stderr
    return result.stderr.strip().splitlines()[-1]


def test_production_without_secret_key_refuses_to_start_naming_it():
    assert "SECRET_KEY" in refused("hub.settings.production", ALLOWED_HOSTS="hub.example.org")
    assert "SECRET_KEY" in refused("hub.settings.production", ALLOWED_HOSTS="hub.example.org", SECRET_KEY="")


def test_production_without_allowed_hosts_refuses_to_start_naming_it():
    assert "ALLOWED_HOSTS" in refused("hub.settings.production", SECRET_KEY="a-real-secret")
    assert "ALLOWED_HOSTS" in refused("hub.settings.production", SECRET_KEY="a-real-secret", ALLOWED_HOSTS="")


def test_production_refuses_to_start_with_debug_on_in_the_environment():
    for value in ("1", "true", "yes"):
        assert "DEBUG" in refused("hub.settings.production", DEBUG=value, **PRODUCTION)


def test_production_with_debug_off_in_the_environment_starts_without_debug():
    assert loaded("hub.settings.production", DEBUG="0", **PRODUCTION)["DEBUG"] is False


def test_production_with_its_variables_runs_without_debug_and_with_secure_cookies():
    settings = loaded("hub.settings.production", **PRODUCTION)
    assert settings["DEBUG"] is False
    assert settings["ALLOWED_HOSTS"] == ["hub.example.org"]
    assert settings["SESSION_COOKIE_SECURE"] is True
    assert settings["CSRF_COOKIE_SECURE"] is True


def test_production_cookies_can_be_sent_over_plain_http_for_a_local_stack():
    settings = loaded("hub.settings.production", SECURE_COOKIES="0", **PRODUCTION)
    assert settings["SESSION_COOKIE_SECURE"] is False
    assert settings["CSRF_COOKIE_SECURE"] is False


def test_local_runs_with_debug_on_sqlite_console_mail_and_eager_tasks_by_default():
    settings = loaded("hub.settings.local")
    assert settings["DEBUG"] is True
    assert settings["DB_ENGINE"] == "django.db.backends.sqlite3"
    assert settings["DB_NAME"] == str(ROOT / "db.sqlite3")
    assert settings["DB_OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in settings["DB_OPTIONS"]["init_command"]
    assert settings["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert settings["CACHE_BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert settings["CELERY_TASK_ALWAYS_EAGER"] is True


def test_sqlite_syncs_every_commit_unless_told_normal_and_refuses_anything_else():
    assert "PRAGMA synchronous=FULL;" in loaded("hub.settings.local")["DB_OPTIONS"]["init_command"]
    normal = loaded("hub.settings.local", LTM_SQLITE_SYNCHRONOUS="normal")["DB_OPTIONS"]["init_command"]
    assert "PRAGMA synchronous=NORMAL;" in normal
    for value in ("off", "FULL ", "extra", ""):
        assert "LTM_SQLITE_SYNCHRONOUS is full or normal" in refused("hub.settings.local", LTM_SQLITE_SYNCHRONOUS=value)


def test_database_url_keeps_connections_with_health_checks():
    url = "postgres://ltm:pw@db.example.org:5432/ltm"
    settings = loaded("hub.settings.local", DATABASE_URL=url)
    assert (settings["DB_ENGINE"], settings["DB_NAME"]) == ("hub.backends.postgresql", "ltm")
    assert (settings["CONN_MAX_AGE"], settings["CONN_HEALTH_CHECKS"]) == (60, False)
    assert "transaction_mode" not in settings["DB_OPTIONS"]
    assert settings["DB_OPTIONS"]["connect_timeout"] == 3
    assert loaded("hub.settings.local", DATABASE_URL=url, DB_CONN_MAX_AGE="0")["CONN_MAX_AGE"] == 0


def test_redis_url_is_the_cache_and_the_broker():
    settings = loaded("hub.settings.local", REDIS_URL="redis://127.0.0.1:6379/0")
    assert settings["CACHE_BACKEND"] == "hub.backends.cache.FailOpenRedisCache"
    assert settings["CELERY_TASK_ALWAYS_EAGER"] is False


def test_the_redis_cache_gives_up_fast_and_fails_open():
    """A Redis that is away or paused costs half a second, and a cache call then counts as a miss
    instead of an error (the outage tests drive it for real)."""
    options = loaded("hub.settings.production", REDIS_URL="redis://127.0.0.1:6379/0", **PRODUCTION)["CACHE_OPTIONS"]
    assert options == {"SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5, "IGNORE_EXCEPTIONS": True}


def test_postgresql_connections_have_timeouts_and_prepared_statements():
    url = "postgres://ltm:pw@db.example.org:5432/ltm"
    options = loaded("hub.settings.production", DATABASE_URL=url, **PRODUCTION)["DB_OPTIONS"]
    assert options == {
        "connect_timeout": 3,
        "options": "-c statement_timeout=4000",
        "answer_timeout": 4.5,
        "server_side_binding": True,
        "prepare_threshold": 5,
    }
    tuned = loaded(
        "hub.settings.production",
        DATABASE_URL=url,
        DB_CONNECT_TIMEOUT="1",
        DB_STATEMENT_TIMEOUT="0",
        DB_PREPARED_STATEMENTS="0",
        **PRODUCTION,
    )["DB_OPTIONS"]
    # Off (for a pooler that cannot keep them): Django's own default, client-side binding.
    assert tuned == {
        "connect_timeout": 1,
        "options": "-c statement_timeout=0",
        "answer_timeout": None,
        "server_side_binding": False,
        "prepare_threshold": None,
    }


def test_test_settings_use_the_fast_password_hasher_and_eager_tasks():
    settings = loaded("hub.settings.test", REDIS_URL="redis://127.0.0.1:6379/0")
    assert settings["PASSWORD_HASHERS"] == ["django.contrib.auth.hashers.MD5PasswordHasher"]
    assert settings["CELERY_TASK_ALWAYS_EAGER"] is True


def test_production_mail_from_one_email_url_or_a_file_folder():
    tls = loaded("hub.settings.production", **PRODUCTION, EMAIL_URL="smtp+tls://hub:s3cret@smtp.example.org:587")
    assert tls["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert tls["EMAIL"] == {
        "EMAIL_HOST": "smtp.example.org",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "hub",
        "EMAIL_HOST_PASSWORD": "s3cret",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_FILE_PATH": "",
    }
    ssl = loaded("hub.settings.production", **PRODUCTION, EMAIL_URL="smtp+ssl://hub:s3cret@smtp.example.org:465")
    assert (ssl["EMAIL"]["EMAIL_USE_SSL"], ssl["EMAIL"]["EMAIL_USE_TLS"], ssl["EMAIL"]["EMAIL_PORT"]) == (
        True,
        False,
        465,
    )
    files = loaded(
        "hub.settings.production",
        **PRODUCTION,
        EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
        EMAIL_FILE_PATH="var/mail",
    )
    assert (files["EMAIL_BACKEND"], files["EMAIL"]["EMAIL_FILE_PATH"]) == (
        "django.core.mail.backends.filebased.EmailBackend",
        "var/mail",
    )
