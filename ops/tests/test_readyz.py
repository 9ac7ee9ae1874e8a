"""/v1/readyz: 200 when the hub can serve, else 503 naming what is missing."""

import pytest

from ops import health

pytestmark = pytest.mark.django_db


def test_ready_names_each_dependency(client, settings):
    response = client.get("/v1/readyz")
    assert response.status_code == 200
    cache = "ok" if "Redis" in settings.CACHES["default"]["BACKEND"] else "not configured"
    assert response.json() == {"ok": True, "database": "ok", "cache": cache, "migrations": "ok", "manual": "ok"}


def test_the_database_down_is_a_503_and_healthz_stays_200(client, monkeypatch):
    monkeypatch.setattr(health, "database_state", lambda: health.UNAVAILABLE)
    response = client.get("/v1/readyz")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["error"] == "not ready: database unavailable, migrations unknown"
    assert (body["database"], body["migrations"]) == ("unavailable", "unavailable")
    assert client.get("/v1/healthz").status_code == 200


def test_redis_that_does_not_answer_is_named(client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "hub.backends.cache.FailOpenRedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # the discard port: nothing listens there
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2, "IGNORE_EXCEPTIONS": True},
        }
    }
    response = client.get("/v1/readyz")
    assert response.status_code == 503
    assert response.json()["error"] == "not ready: cache unavailable"


def test_unapplied_migrations_are_listed(client, monkeypatch):
    on_disk = health.migrations_on_disk() | {("packets", "9999_from_a_newer_checkout")}
    monkeypatch.setattr(health, "migrations_on_disk", lambda: on_disk)
    response = client.get("/v1/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["error"] == "not ready: migrations unapplied"
    assert body["unapplied"] == ["packets.9999_from_a_newer_checkout"]


def test_a_manual_not_built_is_named_when_it_counts(client, settings, tmp_path):
    settings.LTM_READYZ_MANUAL = True
    settings.LTM_DOCS_SITE_DIR = tmp_path / "docs_site"  # nothing built there
    response = client.get("/v1/readyz")
    assert response.status_code == 503
    assert response.json()["error"] == "not ready: manual not built"
    assert response.json()["manual"] == "missing"


def test_a_built_manual_is_ready(client, settings, tmp_path):
    settings.LTM_READYZ_MANUAL = True
    site = tmp_path / "docs_site"
    site.mkdir()
    (site / "index.html").write_text("<h1>manual</h1>")
    settings.LTM_DOCS_SITE_DIR = site
    assert client.get("/v1/readyz").json()["manual"] == "ok"
