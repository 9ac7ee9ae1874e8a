"""A token remembers whether it was issued after a sign-in with a second factor: the consent page
and the device page ask for the factor when the person has one and the session has not shown it,
and what the session had shown goes onto the grant, then the token, then each refreshed token."""

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from accounts.testing import add_totp, sign_in_with_code, totp_code
from core.testing import signed_in
from oauth.models import DeviceDetails, SecondFactorToken
from oauth.selectors import bearer_get
from oauth.testing import approve, authorize_device, authorize_query, exchange, grant_of, pkce, poll, refresh, register

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


def connected(browser):
    """An MCP client signed in through the consent page in `browser`: (client_id, tokens)."""
    client_id = register().json()["client_id"]
    verifier, challenge = pkce()
    code = approve(browser, client_id, challenge)["code"][0]
    issued = exchange(client_id, code, verifier)
    assert issued.status_code == 200, issued.content
    return client_id, issued.json()


def shown(token: str) -> bool:
    return bearer_get(plaintext=token).second_factor


def test_the_consent_page_asks_for_the_second_factor_first(alice):
    add_totp(alice)
    _, challenge = pkce()
    asked = signed_in(alice).get(authorize_query(register().json()["client_id"], challenge))
    assert asked.status_code == 302 and asked["Location"].startswith(
        "/accounts/2fa/reauthenticate/?next=%2Foauth%2Fauthorize"
    )


def test_an_app_connected_after_the_second_factor_keeps_it_through_refreshes(alice):
    secret = add_totp(alice)
    browser, _, _ = sign_in_with_code("alice", PASSWORD, totp_code(secret))
    client_id, tokens = connected(browser)
    assert shown(tokens["access_token"])
    assert not SecondFactorToken.objects.filter(grant__isnull=False).exists()  # the grant's row went with it
    renewed = refresh(client_id, tokens["refresh_token"]).json()
    assert shown(renewed["access_token"])
    assert shown(refresh(client_id, renewed["refresh_token"]).json()["access_token"])


def test_an_app_connected_without_it_is_not_marked(bob):
    client_id, tokens = connected(signed_in(bob))
    assert not shown(tokens["access_token"])
    assert not shown(refresh(client_id, tokens["refresh_token"]).json()["access_token"])


def test_the_device_page_marks_a_device_approved_after_the_second_factor(alice, bob):
    secret = add_totp(alice)
    browsers = {"alice": sign_in_with_code("alice", PASSWORD, totp_code(secret))[0], "bob": signed_in(bob)}
    for name, browser in browsers.items():
        client = Client()
        started = authorize_device(client).json()
        code = grant_of(started["device_code"]).user_code
        assert browser.get(f"/device?user_code={code}").status_code == 200
        decided = browser.post("/device/decide", {"user_code": code, "action": "approve"})
        assert decided.status_code == 302, decided.content
        token = poll(client, started["device_code"]).json()["access_token"]
        assert shown(token) is (name == "alice")
    assert list(DeviceDetails.objects.order_by("created_at").values_list("second_factor", flat=True)) == [True, False]


def test_a_decision_posted_before_the_second_factor_is_sent_to_confirm_it(alice):
    add_totp(alice)
    answer = signed_in(alice).post("/device/decide", {"user_code": "BCDF-GHJK", "action": "approve"})
    assert answer.status_code == 302
    assert answer["Location"] == "/accounts/2fa/reauthenticate/?next=%2Fdevice%3Fuser_code%3DBCDF-GHJK"
    assert not get_access_token_model().objects.exists()
