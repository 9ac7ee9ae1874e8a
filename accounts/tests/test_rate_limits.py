"""Wrong passwords on every sign-in form (django-axes) and the per-address limit of
/oauth/authorize_device (allauth's rate limits), counted per client address."""

import pytest
from django.test import Client

from accounts.testing import FORM, make_admin, password_sign_in
from core.testing import ApiClient

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


def wrong(login, times, **where):
    for _ in range(times):
        response, signed_in = password_sign_in(login, "wrong-password", **where)
        assert not signed_in


def test_nine_wrong_passwords_then_the_right_one_signs_in(alice):
    # One wrong password counts once, though allauth and django-axes both see it.
    wrong("alice", 9)
    assert password_sign_in("alice", PASSWORD)[1]


def test_ten_wrong_passwords_lock_the_name_out_from_that_address_even_with_the_right_one(alice):
    wrong("alice", 10)
    response, signed_in = password_sign_in("alice", PASSWORD)
    assert not signed_in
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    # Typed another way, it is the same name.
    assert not password_sign_in("ALICE", PASSWORD)[1]


def test_a_lockout_stays_with_its_address_and_spares_the_ltm_client(alice, make_token):
    token = make_token(alice)
    wrong("alice", 10)
    assert password_sign_in("alice", PASSWORD, address="192.0.2.7")[1]
    assert ApiClient(token).get("/v1/packets").status_code == 200


def test_the_admin_signs_in_through_the_one_sign_in_page(alice):
    make_admin(alice)
    response = Client().post("/admin/login/", {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fadmin%2Flogin%2F"
    wrong("alice", 10)
    assert password_sign_in("alice", PASSWORD)[0].status_code == 429


def test_behind_a_trusted_proxy_the_lockout_follows_the_forwarded_address(alice, settings):
    settings.LTM_TRUST_PROXY_HEADERS = True
    for _ in range(10):
        Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.1").post(
            "/accounts/login/", {"login": "alice", "password": "wrong-password"}
        )
    other = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.2")
    assert other.post("/accounts/login/", {"login": "alice", "password": PASSWORD}).status_code == 302


def authorize(address="127.0.0.1", forwarded=None):
    headers = {"REMOTE_ADDR": address}
    if forwarded:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return Client(**headers).post("/oauth/authorize_device", "client_id=ltm-cli&scope=read+write", content_type=FORM)


def test_device_authorization_allows_twenty_a_minute_per_address():
    assert all(authorize().status_code == 200 for _ in range(20))
    refused = authorize()
    assert refused.status_code == 429
    assert refused.json()["error"] == "slow_down"
    assert "wait a minute" in refused.json()["error_description"]
    assert refused["Retry-After"] == "60"
    assert authorize(address="192.0.2.7").status_code == 200


def test_behind_an_untrusted_proxy_everyone_shares_its_address(settings):
    settings.LTM_TRUST_PROXY_HEADERS = False
    for n in range(20):
        assert authorize(address="10.0.0.1", forwarded=f"198.51.100.{n}").status_code == 200
    assert authorize(address="10.0.0.1", forwarded="198.51.100.99").status_code == 429


def test_behind_a_trusted_proxy_each_client_address_has_its_own_limit(settings):
    settings.LTM_TRUST_PROXY_HEADERS = True
    for _ in range(20):
        assert authorize(address="10.0.0.1", forwarded="198.51.100.1").status_code == 200
    assert authorize(address="10.0.0.1", forwarded="198.51.100.1").status_code == 429
    assert authorize(address="10.0.0.1", forwarded="198.51.100.2").status_code == 200
