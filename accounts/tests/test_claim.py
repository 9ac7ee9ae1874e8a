"""Claiming a web sign-in for an account made by an anonymous `ltm join`."""

from datetime import timedelta
from unittest import mock

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.utils import timezone

from accounts.models import User
from accounts.testing import password_sign_in, passwordless_user

pytestmark = pytest.mark.django_db

PASSWORD = "a long and unusual passphrase"


@pytest.fixture
def joiner(db):
    """(user, token) of someone who joined a team with `ltm join` and no account."""
    return passwordless_user()


@pytest.fixture
def claim_link(api_with_token):
    return lambda token: api_with_token(token).post("/v1/account/claim-link", {})


@pytest.fixture
def claim_path(joiner, claim_link):
    response = claim_link(joiner[1])
    assert response.status_code == 201
    return response.json()["url"].removeprefix("http://testserver")


def fill(client, path, email="dana@example.org", password=PASSWORD, password2=None):
    return client.post(path, {"email": email, "password1": password, "password2": password2 or password})


def test_the_api_returns_a_link_with_its_expiry(joiner, claim_link):
    before = timezone.now()
    response = claim_link(joiner[1])
    assert response.status_code == 201
    body = response.json()
    assert body["url"].startswith("http://testserver/claim/")
    expires = timezone.datetime.fromisoformat(body["expires_at"])
    assert timedelta(minutes=59) < expires - before <= timedelta(hours=1, seconds=1)


def test_the_link_needs_a_bearer(anon_api):
    assert anon_api.post("/v1/account/claim-link", {}).status_code == 401


def test_an_account_that_has_a_password_gets_no_link(api_as, alice):
    response = api_as(alice).post("/v1/account/claim-link", {})
    assert response.status_code == 409
    assert "already has a password" in response.json()["error"]


def test_the_page_sets_email_and_password_and_signs_in(joiner, claim_path, api_with_token):
    user, token = joiner
    path = claim_path
    browser = Client()
    page = browser.get(path)
    assert page.status_code == 200
    assert user.username in page.content.decode()

    response = fill(browser, path)

    assert response.status_code == 302
    user.refresh_from_db()
    assert user.email == "dana@example.org"
    assert user.check_password(PASSWORD)
    assert browser.get("/").wsgi_request.user == user  # signed in by the claim
    assert password_sign_in(user.username, PASSWORD)[1]
    assert EmailAddress.objects.get(user=user).email == "dana@example.org"
    # The command-line token keeps working.
    assert api_with_token(token).get("/v1/packets").status_code == 200


def test_the_link_works_once(joiner, claim_path):
    path = claim_path
    fill(Client(), path)
    again = Client().get(path)
    assert again.status_code == 410
    assert "can no longer be used" in again.content.decode()
    response = fill(Client(), path, password="another long passphrase")
    assert response.status_code == 410
    joiner[0].refresh_from_db()
    assert joiner[0].check_password(PASSWORD)


def test_the_link_expires_after_an_hour(joiner, claim_path):
    path = claim_path
    later = timezone.now() + timedelta(hours=1, seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert Client().get(path).status_code == 410
        assert fill(Client(), path).status_code == 410
    joiner[0].refresh_from_db()
    assert not joiner[0].has_usable_password()


def test_a_tampered_link_is_410(claim_path):
    path = claim_path
    assert Client().get(path[:-3] + "xyz").status_code == 410
    assert Client().get("/claim/not-a-code").status_code == 410


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"password2": "something else entirely"}, "The two passwords differ."),
        ({"password": "short", "password2": "short"}, "too short"),
        ({"email": "not-an-email"}, "valid email"),
        ({"email": "alice@example.com"}, "belongs to another account"),
    ],
)
def test_bad_input_is_shown_on_the_form_and_nothing_changes(alice, joiner, claim_path, fields, message):
    path = claim_path
    response = fill(Client(), path, **fields)
    assert response.status_code == 200
    assert message in response.content.decode()
    user = User.objects.get(pk=joiner[0].pk)
    assert not user.has_usable_password() and user.email == ""
