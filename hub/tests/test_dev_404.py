"""Development (`make run`, hub/settings/local.py) runs with DEBUG on, where Django answers every
missing page with its technical 404 (a yellow page listing the URL patterns, no way back). The
development settings answer with the hub's own 404 page instead, and keep DEBUG's other help."""

import pytest
from django.test import Client, override_settings

from core.testing import signed_in
from hub.settings import local

TECHNICAL_404 = "Using the URLconf"


@pytest.fixture
def development():
    """The development settings' answer to a missing page: DEBUG and their MIDDLEWARE."""
    with override_settings(DEBUG=True, MIDDLEWARE=local.MIDDLEWARE):
        yield


def test_the_development_settings_run_with_debug_and_the_hubs_404():
    assert local.DEBUG is True
    assert local.MIDDLEWARE[-1] == "core.views.HubNotFoundPages"


def _is_the_hubs_404(response) -> bool:
    page = response.content.decode()
    return response.status_code == 404 and '<a href="/">Back to the hub</a>' in page and TECHNICAL_404 not in page


@pytest.mark.parametrize("path", ["/nothing/here", "/tokens/nosuch/deeper", "/client/nosuch/deeper"])
def test_a_path_nothing_matches_gets_the_hubs_404(db, development, path):
    assert _is_the_hubs_404(Client().get(path))


@pytest.mark.parametrize("path", ["/teams/nosuch", "/packets/01NOSUCHPACKET0000000000000"])
def test_a_view_that_finds_nothing_gets_the_hubs_404(development, alice, path):
    """Signed in, the dashboard's views raise Http404 for a team or packet that is not there."""
    assert _is_the_hubs_404(signed_in(alice).get(path))


def test_a_trailing_slash_still_leads_to_the_page(development, alice):
    response = signed_in(alice).get("/tokens/")
    assert response.status_code == 301 and response["Location"] == "/tokens"


def test_the_api_still_answers_json(db, development):
    response = Client().get("/v1/nosuch")
    assert response.status_code == 404 and response.json() == {"error": "not found"}


@pytest.mark.parametrize("path", ["/teams/nosuch", "/nothing/here"])
def test_without_it_debug_shows_the_technical_404(settings, alice, path):
    """What the middleware is for: DEBUG alone lists the URL patterns."""
    settings.DEBUG = True
    response = signed_in(alice).get(path)
    assert response.status_code == 404 and TECHNICAL_404 in response.content.decode()


def test_debugs_other_help_stays(db, development, monkeypatch):
    """A crash still shows Django's technical 500 page, with the traceback."""

    def broken(request):
        raise RuntimeError("a bug in a view")

    monkeypatch.setattr("connect.views.hub_url", broken)
    response = Client(raise_request_exception=False).get("/client/")
    assert response.status_code == 500
    assert "RuntimeError" in response.content.decode() and "a bug in a view" in response.content.decode()
