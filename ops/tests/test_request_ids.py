"""Every answer carries X-Request-ID; log lines, error pages and 5xx errors name it."""

import json
import logging

import pytest
from django.test import Client
from django.urls import include, path

from core.logs import JsonLines
from core.request_id import RequestContext, current

pytestmark = pytest.mark.django_db


def test_a_new_id_for_each_request(client):
    first, second = client.get("/v1/healthz")["X-Request-ID"], client.get("/v1/healthz")["X-Request-ID"]
    assert len(first) == 32 and first != second


def test_the_id_is_forgotten_once_the_answer_is_sent(client):
    """Log lines written after a request (a thread's, a signal's) do not carry its id."""
    client.get("/v1/healthz")
    assert current.get() == ""


@pytest.mark.parametrize("given", ["abc-123", "0f5c2b9e-8c1d-4a51-9a7a-6b3d5e7f9a10", "trace:4bf92f3577b3.01"])
def test_the_callers_sane_id_is_kept(client, given):
    assert client.get("/v1/healthz", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given
    assert client.get("/accounts/login/", HTTP_X_REQUEST_ID=given)["X-Request-ID"] == given


@pytest.mark.parametrize("given", ["", "x" * 129, "has space", "new\nline", "<script>", "-leading-dash"])
def test_an_insane_id_is_replaced(client, given):
    answered = client.get("/v1/healthz", HTTP_X_REQUEST_ID=given)["X-Request-ID"]
    assert answered != given and len(answered) == 32


def boom(request):
    raise RuntimeError("a bug")


urlpatterns = [path("boom", boom), path("v1/boom", boom), path("", include("hub.urls"))]
handler500 = "core.views.server_error"


@pytest.mark.urls(__name__)
def test_a_500_page_and_a_500_json_error_show_the_id(caplog):
    client = Client(raise_request_exception=False)
    page = client.get("/boom", HTTP_X_REQUEST_ID="page-500-id")
    assert page.status_code == 500 and "page-500-id" in page.content.decode()
    api = client.get("/v1/boom", HTTP_X_REQUEST_ID="api-500-id")
    assert api.status_code == 500 and "api-500-id" in api.json()["error"]
    logged = [record for record in caplog.records if record.name == "django.request"]
    assert {record.request_id for record in logged} >= {"page-500-id", "api-500-id"}


def test_a_404_page_shows_the_id(client):
    response = client.get("/no-such-page", HTTP_X_REQUEST_ID="page-404-id")
    assert response.status_code == 404 and "page-404-id" in response.content.decode()


def record(message, **extra):
    made = logging.LogRecord("ltm.requests", logging.INFO, __file__, 1, message, (), None)
    made.__dict__.update(extra)
    return made


def test_json_lines_carry_the_fields_a_pipeline_reads():
    line = record("GET /v1/packets 200", route="v1/packets", status=200, duration_ms=1.5, user_id="01JUSER")
    token = current.set("req-1")
    try:
        RequestContext().filter(line)
    finally:
        current.reset(token)
    parsed = json.loads(JsonLines().format(line))
    assert parsed["level"] == "INFO" and parsed["logger"] == "ltm.requests"
    assert parsed["message"] == "GET /v1/packets 200" and parsed["request_id"] == "req-1"
    assert (parsed["route"], parsed["status"], parsed["duration_ms"], parsed["user_id"]) == (
        "v1/packets",
        200,
        1.5,
        "01JUSER",
    )
    assert parsed["time"].endswith("+00:00")


def test_json_lines_are_masked_whole():
    line = record("GET /v1/invites/SECRETCODE 404", path="/claim/ANOTHERSECRET", header="Bearer ltm_abcdef")
    text = JsonLines().format(line)
    for secret in ("SECRETCODE", "ANOTHERSECRET", "ltm_abcdef"):
        assert secret not in text
    json.loads(text)


def test_the_request_line_is_written_with_the_request_log_on(settings, caplog, alice, make_token):
    caplog.set_level(logging.INFO, logger="ltm.requests")
    settings.LTM_REQUEST_LOG = True  # read as a new client's middleware is built
    response = Client().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {make_token(alice)}", HTTP_X_REQUEST_ID="line-1")
    assert response.status_code == 200
    [line] = [r for r in caplog.records if r.name == "ltm.requests"]
    assert (line.route, line.status, line.user_id, line.request_id) == ("v1/packets", 200, alice.pk, "line-1")
