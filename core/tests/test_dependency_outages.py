"""A database that does not answer is a 503 with Retry-After, on the API (JSON) and on pages
(HTML), wherever the error is raised; /v1/readyz says which dependency is down (ops/tests) while
/v1/healthz, which the client asks, stays 200. (hub/tests/test_outages.py breaks the real services
under the production web server.)"""

import pytest
from django.db import OperationalError
from django.test import Client

from core.testing import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def unanswered(monkeypatch):
    """Every packet read fails the way psycopg fails when the server does not answer."""

    def fail(*args, **kwargs):
        raise OperationalError("consuming input failed: server closed the connection unexpectedly")

    monkeypatch.setattr("packets.selectors.packet_list", fail)
    monkeypatch.setattr("packets.selectors.packet_search", fail)


def test_an_unanswered_database_is_a_503_with_retry_after_on_the_api(unanswered, make_token, alice):
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {make_token(alice)}")

    response = client.get("/v1/packets")

    assert response.status_code == 503
    assert response.json() == {"error": "the database is not answering; try again in a few seconds"}
    assert response["Retry-After"] == "5"


def test_an_unanswered_database_is_a_503_page_for_people(unanswered, alice):
    client = Client(raise_request_exception=False)
    client.force_login(alice)

    response = client.get("/")

    assert response.status_code == 503
    assert "cannot reach its database" in response.content.decode()
    assert response["Retry-After"] == "5"


def test_other_errors_stay_500s(monkeypatch, make_token, alice):
    monkeypatch.setattr("packets.selectors.packet_list", lambda **kwargs: 1 / 0)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {make_token(alice)}")
    response = client.get("/v1/packets")
    assert response.status_code == 500
    assert response.json() == {"error": f"internal error; the hub logged it as request {response['X-Request-ID']}"}


def test_healthz_asks_the_database_nothing_whatever_the_request_carries(alice, make_token, django_assert_num_queries):
    client = signed_in(alice, HTTP_AUTHORIZATION=f"Bearer {make_token(alice)}")  # a session cookie and a token
    with django_assert_num_queries(0):
        assert client.get("/v1/healthz").status_code == 200
        assert client.head("/v1/healthz").status_code == 200
