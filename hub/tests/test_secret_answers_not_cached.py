"""Answers of the API that hand out a secret (an invite code, a new account's token, a claim link,
a client secret and a registration token) say `Cache-Control: no-store`: no browser or proxy on
the way keeps them. (Pages that show a secret: hub/tests/test_security_headers.py.)"""

import json

import pytest
from django.test import Client

from accounts.testing import passwordless_user
from core.testing import ApiClient
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db


def assert_not_cached(response, status):
    assert response.status_code == status, response.content
    assert "no-store" in response["Cache-Control"], response.get("Cache-Control")


def test_a_new_invite(api_as, alice):
    make_team(alice, "alpha")
    assert_not_cached(api_as(alice).post("/v1/teams/alpha/invites", {}), 201)


def test_an_accepted_invite_that_makes_an_account_and_its_token(alice):
    _, code = make_invite(make_team(alice, "alpha"))
    response = ApiClient().post(f"/v1/invites/{code}/accept", {"display": "Newcomer"})
    assert_not_cached(response, 201)
    assert response.json()["token"]


def test_a_claim_link():
    _, token = passwordless_user()
    assert_not_cached(ApiClient(token).post("/v1/account/claim-link", {}), 201)


def test_a_client_registration_its_reading_and_its_update():
    metadata = {"client_name": "agent", "redirect_uris": ["https://agent.example/cb"]}  # confidential: a secret
    registered = Client().post("/oauth/register", json.dumps(metadata), content_type="application/json")
    assert_not_cached(registered, 201)
    assert registered.json()["client_secret"]
    client_id, bearer = registered.json()["client_id"], f"Bearer {registered.json()['registration_access_token']}"
    path = f"/oauth/register/{client_id}"
    assert_not_cached(Client().get(path, HTTP_AUTHORIZATION=bearer), 200)
    updated = Client().put(path, json.dumps(metadata), content_type="application/json", HTTP_AUTHORIZATION=bearer)
    assert_not_cached(updated, 200)
