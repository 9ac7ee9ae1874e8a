"""Input no part of the hub can store (NUL characters) is a clear 400 everywhere, never a 500."""

import pytest
from django.test import Client

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
