"""Second factors (allauth.mfa) as the hub runs them: sign-in asks for the code, secrets are not
usable from a database read, wrong codes count towards the password lockout, and the pages that
connect a client ask for the second factor when the session has not shown it."""

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from django.test import Client

from accounts.mfa import LOCKED_OUT, HubMFAAdapter, has_second_factor, second_factor_shown
from accounts.testing import add_totp, password_sign_in, sign_in_with_code, totp_code
from core.testing import signed_in

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


def test_sign_in_asks_for_the_code_and_records_the_second_factor(alice):
    secret = add_totp(alice)
    client, answer, signed_in_now = sign_in_with_code("alice", PASSWORD, totp_code(secret))
    assert answer.status_code == 302 and signed_in_now
    methods = [record["method"] for record in client.session["account_authentication_methods"]]
    assert methods == ["password", "mfa"]


def test_a_code_works_once(alice):
    secret = add_totp(alice)
    code = totp_code(secret)
    assert sign_in_with_code("alice", PASSWORD, code)[2]
    assert not sign_in_with_code("alice", PASSWORD, code)[2]


def test_a_recovery_code_signs_in_once(alice):
    add_totp(alice)
    codes = RecoveryCodes.activate(alice).generate_codes()
    assert sign_in_with_code("alice", PASSWORD, codes[0])[2]
    client, answer, signed_in_now = sign_in_with_code("alice", PASSWORD, codes[0])
    assert not signed_in_now and "Incorrect code" in answer.content.decode()
    assert sign_in_with_code("alice", PASSWORD, codes[1])[2]


def test_secrets_are_encrypted_at_rest(alice):
    secret = add_totp(alice)
    RecoveryCodes.activate(alice)
    stored = {row.type: row.data for row in Authenticator.objects.filter(user=alice)}
    assert secret not in str(stored["totp"])
    assert HubMFAAdapter().decrypt(stored["totp"]["secret"]) == secret
    seed = HubMFAAdapter().decrypt(stored["recovery_codes"]["seed"])
    assert seed and seed not in str(stored["recovery_codes"])


def test_a_secret_encrypted_under_another_key_matches_no_code(alice, settings):
    secret = add_totp(alice)
    settings.SECRET_KEY = "another-key"
    assert not sign_in_with_code("alice", PASSWORD, totp_code(secret))[2]


def test_wrong_codes_count_towards_the_lockout_of_wrong_passwords(alice):
    add_totp(alice)
    for _ in range(5):
        assert not password_sign_in("alice", "wrong-password")[1]
    for _ in range(4):
        assert not sign_in_with_code("alice", PASSWORD, "000000")[2]
    client = Client(REMOTE_ADDR="127.0.0.1")
    client.post("/accounts/login/", {"login": "alice", "password": PASSWORD})
    locked = client.post("/accounts/2fa/authenticate/", {"code": "000000"})  # the tenth failure
    assert locked.status_code == 429
    response, signed_in_now = password_sign_in("alice", PASSWORD)
    assert response.status_code == 429 and not signed_in_now


def test_a_locked_out_name_may_not_try_codes(alice):
    secret = add_totp(alice)
    client = Client(REMOTE_ADDR="127.0.0.1")
    client.post("/accounts/login/", {"login": "alice", "password": PASSWORD})
    for _ in range(10):
        password_sign_in("alice", "wrong-password")
    answer = client.post("/accounts/2fa/authenticate/", {"code": totp_code(secret)})
    assert LOCKED_OUT in answer.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_second_factor_is_what_the_account_has_on_a_session(alice, bob):
    add_totp(alice)
    assert has_second_factor(alice) and second_factor_shown(alice)
    assert not has_second_factor(bob) and not second_factor_shown(bob)


@pytest.mark.parametrize("path", ["/device", "/device?user_code=BCDF-GHJK"])
def test_the_device_page_asks_for_the_second_factor_first(alice, path):
    add_totp(alice)
    response = signed_in(alice).get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/2fa/reauthenticate/?next=")
    assert "next=%2Fdevice" in response["Location"]


def test_after_the_code_the_device_page_opens(alice):
    secret = add_totp(alice)
    client, _, _ = sign_in_with_code("alice", PASSWORD, totp_code(secret))
    assert client.get("/device").status_code == 200


def test_without_a_second_factor_the_device_page_opens_at_once(bob):
    assert signed_in(bob).get("/device").status_code == 200


def test_confirming_with_the_code_records_it_and_comes_back(alice):
    secret = add_totp(alice)
    client = signed_in(alice)
    asked = client.get("/device")["Location"]
    answer = client.post(asked, {"code": totp_code(secret)})
    assert answer.status_code == 302 and answer["Location"] == "/device"
    assert client.get("/device").status_code == 200


def test_a_token_made_after_the_second_factor_says_so(alice):
    secret = add_totp(alice)
    client, _, _ = sign_in_with_code("alice", PASSWORD, totp_code(secret))
    client.post("/tokens", {"name": "laptop", "expiry": "30", "scope": "read write"})
    plain = signed_in(alice)
    plain.post("/tokens", {"name": "ci", "expiry": "30", "scope": "read write"})
    made = dict(alice.api_tokens.values_list("name", "second_factor"))
    assert made == {"laptop": True, "ci": False}


def test_the_account_page_links_the_second_factor_pages(alice):
    body = signed_in(alice).get("/account").content.decode()
    assert 'href="/accounts/2fa/"' in body
    page = signed_in(alice).get("/accounts/2fa/")
    assert page.status_code == 200
    assert "Two-factor and passkeys" in page.content.decode()


def test_sign_in_page_offers_a_passkey(client):
    body = Client().get("/accounts/login/").content.decode()
    assert 'id="passkey_login"' in body and "/static/mfa/js/webauthn.js" in body
