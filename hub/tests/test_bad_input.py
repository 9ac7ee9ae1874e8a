"""Input no part of the hub can store (NUL characters) is a clear 400 everywhere, never a 500."""

import json

import pytest
from django.test import Client

from packets.testing import packet_v02

pytestmark = pytest.mark.django_db

NUL = {"error": "NUL characters (\\u0000) are not allowed"}


@pytest.mark.parametrize(
    "fields",
    [
        "client_id=%00",
        "client_id=ltm-cli&scope=read%00",
    ],
)
def test_nul_in_device_authorization_form_is_400(fields):
    response = Client().post("/oauth/authorize_device", fields, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json() == NUL


def test_nul_in_token_form_is_400():
    fields = "grant_type=urn:ietf:params:oauth:grant-type:device_code&client_id=ltm-cli&device_code=ab%00cd"
    response = Client().post("/oauth/token", fields, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert response.json() == NUL


def test_nul_in_a_json_body_is_400(api_as, alice):
    response = api_as(alice).post("/v1/invites/whatever/accept", {"display": "eve\u0000"})
    assert response.status_code == 400
    assert response.json() == NUL


def test_nul_in_a_page_url_is_a_400_page(client):
    response = client.get("/device?user_code=AB%00CD")
    assert response.status_code == 400
    assert b"Bad request" in response.content


@pytest.mark.parametrize("path", ["/v1/nothing-here", "/v1/teams/x/y/z", "/oauth/nothing"])
def test_unknown_api_paths_are_json_404_even_with_debug_on(settings, path):
    settings.DEBUG = True
    response = Client().get(path)
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}


def test_form_parsing_is_not_applied_to_v1_bodies(api_as, alice):
    """A /v1 body is JSON whatever its declared type: a packet posted as a form (curl -d) whose
    text holds many "&" is read as the packet, not parsed as (too many) form fields first."""
    packet = packet_v02(goal="&" * 1024, next_step="&" * 1024)
    response = api_as(alice).post(
        "/v1/packets", raw=json.dumps(packet), content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 201


def test_a_stray_post_under_v1_is_a_json_404_not_a_csrf_page():
    response = Client(enforce_csrf_checks=True).post("/v1/invites//accept", "{}", content_type="application/json")
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}


@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/authorize_device"])
def test_oauth_endpoints_answer_a_wrong_method_in_json(path):
    response = Client().get(path)
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert response.json() == {"error": "invalid_request", "error_description": "method GET not allowed; use POST"}


def test_drf_errors_use_the_hubs_wording(api_as, alice):
    api = api_as(alice)
    assert api.client.put("/v1/teams", **api._headers(None)).json() == {"error": "method PUT not allowed"}
    response = api.post("/v1/teams", raw="{nope")
    assert response.status_code == 400
    assert response.json()["error"].startswith("invalid JSON: ")


def test_a_body_without_json_content_type_is_still_read_as_json(api_as, alice):
    """The Go client sends `{}` to leave/invites/accept; a client that omits the Content-Type
    (or sends another) is read the same way, as /v1 bodies are JSON."""
    response = api_as(alice).post("/v1/teams", raw='{"name": "plain"}', content_type="text/plain")
    assert response.status_code == 201
    assert response.json()["team"]["name"] == "plain"


@pytest.mark.parametrize(
    ("typed", "page"), [("/teams/", "/teams"), ("/tokens/?x=1", "/tokens?x=1"), ("/account/", "/account")]
)
def test_a_page_typed_with_a_trailing_slash_redirects_to_it(client, typed, page):
    response = client.get(typed)
    assert response.status_code == 301
    assert response["Location"] == page


def test_an_unknown_page_with_a_trailing_slash_is_still_404(client):
    assert client.get("/no-such-page/").status_code == 404


@pytest.mark.parametrize("path", ["//evil.example/", "/\\evil.example/"])
def test_the_trailing_slash_redirect_never_leaves_the_hub(rf, monkeypatch, path):
    """Even if some route matched such a path, the redirect would point at another host."""
    from core import views

    monkeypatch.setattr(views, "_resolves", lambda path: True)
    request = rf.get("/")
    request.path = request.path_info = path
    assert views.not_found(request).status_code == 404
