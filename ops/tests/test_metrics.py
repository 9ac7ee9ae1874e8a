"""/metrics: the Prometheus text, for the bearer of LTM_METRICS_TOKEN only."""

import os
import re
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from ltm.protocol.packet import example_packet
from ops.metrics import exposition
from webhooks.models import Delivery
from webhooks.signals import delivery_attempted

pytestmark = pytest.mark.django_db
TOKEN = "scrape-me-0123456789"


@pytest.fixture
def scrape(settings):
    settings.LTM_METRICS_TOKEN = TOKEN

    def scrape() -> dict:
        response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/plain; version=")
        samples = {}
        for family in text_string_to_metric_families(response.content.decode()):
            for sample in family.samples:
                samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        return samples

    return scrape


def value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_unset_token_means_no_page(client, settings):
    settings.LTM_METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}", f"Bearer {TOKEN}x", "Bearer "])
def test_a_missing_or_wrong_token_is_a_401(client, settings, header):
    settings.LTM_METRICS_TOKEN = TOKEN
    extra = {"HTTP_AUTHORIZATION": header} if header is not None else {}
    response = client.get("/metrics", **extra)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert TOKEN not in response.content.decode()


def test_requests_are_counted_by_route_method_and_status(scrape, api_as, alice, django_capture_on_commit_callbacks):
    api = api_as(alice)
    before = scrape()
    packet = {**example_packet(), "id": "01JTESTMETRICS0000000000001"}
    with django_capture_on_commit_callbacks(execute=True):  # a push is counted once it commits
        assert api.post("/v1/packets", packet).status_code == 201
    assert api.get(f"/v1/packets/{packet['id']}").status_code == 200
    assert api.get("/v1/packets/01JNOSUCHPACKET00000000000").status_code == 404
    after = scrape()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("ltm_http_requests_total", route="v1/packets", method="POST", status="201") == 1
    assert grew("ltm_http_requests_total", route="v1/packets/<path:packet_id>", method="GET", status="200") == 1
    assert grew("ltm_http_requests_total", route="v1/packets/<path:packet_id>", method="GET", status="404") == 1
    assert grew("ltm_http_request_duration_seconds_count", route="v1/packets/<path:packet_id>") == 2
    assert grew("ltm_packets_pushed_total", scope="personal") == 1


def test_no_label_carries_a_person_a_token_or_a_packet(scrape, api_as, alice, settings):
    api = api_as(alice)
    packet = {**example_packet(), "id": "01JTESTMETRICS0000000000002"}
    api.post("/v1/packets", packet)
    api.get(f"/v1/packets/{packet['id']}")
    text = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    for secret in (packet["id"], alice.pk, alice.username, api.token, TOKEN):
        assert secret not in text


def test_an_unknown_method_does_not_make_a_label(scrape, client):
    client.generic("BREW", "/v1/healthz")
    samples = scrape()
    methods = {dict(labels).get("method") for name, labels in samples if name == "ltm_http_requests_total"}
    assert "BREW" not in methods and "other" in methods


def test_build_info_and_dependencies_are_read_at_the_scrape(scrape, settings):
    samples = scrape()
    [(name, labels)] = [key for key in samples if key[0] == "ltm_build_info"]
    assert dict(labels)["version"] == settings.LTM_VERSION
    assert re.fullmatch(r"[0-9a-f]{7,40}|unknown", dict(labels)["commit"])
    assert value(samples, "ltm_dependency_up", dependency="database") == 1.0
    assert value(samples, "ltm_outbox_waiting") >= 0


def test_what_people_do_is_counted_whatever_the_surface(scrape, api_as, alice, bob, django_capture_on_commit_callbacks):
    api = api_as(alice)
    before = scrape()
    packet = {**example_packet(), "id": "01JTESTMETRICS0000000000003"}
    leaky = {**example_packet(), "id": "01JTESTMETRICS0000000000004", "next_step": "use glpat-Xq7vR2mK9pL4sT8wZ3nB"}
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post("/v1/packets", packet).status_code == 201
        assert api.post("/v1/packets", leaky).status_code == 201
        assert api.post(f"/v1/packets/{packet['id']}/shares", {"to": "bob"}).status_code == 201
    assert api.get("/v1/search?q=packet").status_code == 200
    after = scrape()

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("ltm_packets_pushed_total", scope="personal") == 2
    assert grew("ltm_packets_flagged_total", how="push") == 1
    assert grew("ltm_shares_total", scope="personal") == 1
    assert grew("ltm_searches_total", surface="api") == 1


def test_webhook_delivery_attempts_are_counted_by_result(scrape):
    before = scrape()
    delivery_attempted.send(sender=Delivery, result="delivered")
    delivery_attempted.send(sender=Delivery, result="retried")
    after = scrape()
    for result in ("delivered", "retried"):
        grew = value(after, "ltm_webhook_deliveries_total", result=result) - value(
            before, "ltm_webhook_deliveries_total", result=result
        )
        assert grew == 1


# A process that counts one push in the folder it is given, as a web or Celery worker does.
ONE_PUSH = "import django; django.setup(); from ops.metrics import PACKETS_PUSHED; PACKETS_PUSHED.labels('team').inc()"


def test_a_scrape_adds_up_every_process(tmp_path, monkeypatch):
    for server in ("web-8000", "web-8001", "worker-celery@host"):
        folder = tmp_path / server
        folder.mkdir()
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "DJANGO_SETTINGS_MODULE": "hub.settings.test"}
        env.pop("LTM_METRICS_ROOT", None)
        subprocess.run([sys.executable, "-c", ONE_PUSH], cwd=settings.BASE_DIR, env=env, check=True, timeout=120)
    monkeypatch.setenv("LTM_METRICS_ROOT", str(tmp_path))
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(exposition().decode())
        for sample in family.samples
    }
    assert value(samples, "ltm_packets_pushed_total", scope="team") == 3
    assert value(samples, "ltm_dependency_up", dependency="database") == 1.0  # asked now, not counted
