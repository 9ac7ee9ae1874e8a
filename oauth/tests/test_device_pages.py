"""The /device pages: code entry, confirmation, Approve/Deny, clear messages, the rate limit."""

import pytest
from django.test import Client

from oauth import code_attempts, device_flow
from oauth.testing import authorize_device, expire, grant_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def grant(client):
    return grant_of(authorize_device(client).json()["device_code"])


@pytest.fixture
def browser_as(alice):
    web = Client()
    web.force_login(alice)
    return web


def loose(code):
    """How a person might type it: lower case, a dash and spaces."""
    return f" {code[:4].lower()}-{code[4:]} "


def test_anonymous_visitor_is_sent_to_sign_in_and_back_with_the_code(client, grant):
    response = client.get("/device", {"user_code": grant.user_code})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert grant.user_code in response["Location"]


def test_a_signed_out_decision_is_sent_to_sign_in_and_decides_nothing(client, grant):
    response = client.post("/device/decide", {"user_code": grant.user_code, "action": "approve"})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert grant_of(grant.device_code).status == grant.AUTHORIZATION_PENDING
    assert grant_of(grant.device_code).user is None


def test_entry_page_asks_for_the_code(browser_as):
    response = browser_as.get("/device")
    assert response.status_code == 200
    assert b'name="user_code"' in response.content


def test_code_is_matched_whatever_the_case_spaces_and_dash(browser_as, grant):
    response = browser_as.get("/device", {"user_code": loose(grant.user_code)})
    assert response.status_code == 200
    page = response.content.decode()
    assert f"{grant.user_code[:4]}-{grant.user_code[4:]}" in page
    assert "ltm command-line client" in page
    assert "push, delete and publish packets" in page  # what `write` allows
    assert "read your packets" in page  # what `read` allows
    assert 'value="approve"' in page and 'value="deny"' in page


def test_approve_binds_the_grant_to_the_person(browser_as, grant, alice):
    response = browser_as.post("/device/decide", {"user_code": grant.user_code, "action": "approve"})
    assert response.status_code == 302 and response["Location"] == "/device/done/approved"
    grant.refresh_from_db()
    assert grant.status == grant.AUTHORIZED and grant.user == alice
    assert "signed in" in browser_as.get(response["Location"]).content.decode()


def test_deny_marks_the_grant_denied(browser_as, grant):
    response = browser_as.post("/device/decide", {"user_code": loose(grant.user_code), "action": "deny"})
    assert response["Location"] == "/device/done/denied"
    grant.refresh_from_db()
    assert grant.status == grant.DENIED


def test_unknown_code_gets_a_clear_message(browser_as, grant):
    response = browser_as.get("/device", {"user_code": "BBBB-BBBB" if grant.user_code != "BBBBBBBB" else "CCCCCCCC"})
    assert response.status_code == 400
    assert "We don&#x27;t know this code" in response.content.decode()


def test_expired_code_gets_a_clear_message(browser_as, grant):
    expire(grant.device_code)
    response = browser_as.get("/device", {"user_code": grant.user_code})
    assert response.status_code == 400
    page = response.content.decode()
    assert "expired" in page
    assert "Run <code>ltm auth</code> again" in page and "`" not in page


def test_used_code_gets_a_clear_message_and_cannot_be_decided_twice(browser_as, grant):
    browser_as.post("/device/decide", {"user_code": grant.user_code, "action": "approve"})
    response = browser_as.get("/device", {"user_code": grant.user_code})
    assert response.status_code == 400
    page = response.content.decode()
    assert "already been used" in page
    assert "Run <code>ltm auth</code> again" in page and "`" not in page  # a command, not backticks
    again = browser_as.post("/device/decide", {"user_code": grant.user_code, "action": "deny"})
    assert again.status_code == 400
    grant.refresh_from_db()
    assert grant.status == grant.AUTHORIZED


def test_decide_needs_approve_or_deny(browser_as, grant):
    response = browser_as.post("/device/decide", {"user_code": grant.user_code, "action": "maybe"})
    assert response.status_code == 400
    assert grant_of(grant.device_code).status == grant.AUTHORIZATION_PENDING


def test_decide_is_csrf_protected(alice, grant):
    web = Client(enforce_csrf_checks=True)
    web.force_login(alice)
    response = web.post("/device/decide", {"user_code": grant.user_code, "action": "approve"})
    assert response.status_code == 403
    assert grant_of(grant.device_code).status == grant.AUTHORIZATION_PENDING


def wrong_codes(n, real):
    alphabet = device_flow.USER_CODE_ALPHABET
    codes = (alphabet[i % 20] * 4 + alphabet[(i // 20) % 20] * 4 for i in range(1000))
    return [c for c in codes if c != real][:n]


def test_wrong_codes_are_limited_per_person_even_the_right_code_is_then_refused(browser_as, grant):
    for code in wrong_codes(code_attempts.LIMIT_PER_USER, grant.user_code):
        assert browser_as.get("/device", {"user_code": code}).status_code == 400
    blocked = browser_as.get("/device", {"user_code": grant.user_code})
    assert blocked.status_code == 429
    assert "Too many wrong codes" in blocked.content.decode()
    refused = browser_as.post("/device/decide", {"user_code": grant.user_code, "action": "approve"})
    assert refused.status_code == 429
    assert grant_of(grant.device_code).status == grant.AUTHORIZATION_PENDING


def test_wrong_codes_are_limited_per_address_across_accounts(make_user, grant):
    misses = wrong_codes(code_attempts.LIMIT_PER_ADDRESS, grant.user_code)
    per_user = code_attempts.LIMIT_PER_USER
    for n, start in enumerate(range(0, len(misses), per_user)):
        web = Client(REMOTE_ADDR="203.0.113.9")
        web.force_login(make_user(f"guesser{n}"))
        for code in misses[start : start + per_user]:
            assert web.get("/device", {"user_code": code}).status_code == 400
    fresh = Client(REMOTE_ADDR="203.0.113.9")
    fresh.force_login(make_user("fresh"))
    assert fresh.get("/device", {"user_code": grant.user_code}).status_code == 429
    elsewhere = Client(REMOTE_ADDR="198.51.100.7")
    elsewhere.force_login(make_user("elsewhere"))
    assert elsewhere.get("/device", {"user_code": grant.user_code}).status_code == 200


def test_only_misses_count_towards_the_limit(browser_as, grant):
    for _ in range(code_attempts.LIMIT_PER_USER + 2):
        assert browser_as.get("/device", {"user_code": grant.user_code}).status_code == 200


def test_behind_a_trusted_proxy_the_forwarded_address_is_limited(settings, rf):
    from core.http import client_address

    request = rf.get("/device", HTTP_X_FORWARDED_FOR="198.51.100.1, 203.0.113.5", REMOTE_ADDR="10.0.0.2")
    assert client_address(request) == "10.0.0.2"
    settings.LTM_TRUST_PROXY_HEADERS = True
    assert client_address(request) == "203.0.113.5"


# --- signing up from the device step ---------------------------------------------------------


def test_sign_up_sends_a_verification_mail_and_returns_to_the_device_step(client, grant, mailoutbox):
    next_url = f"/device?user_code={grant.user_code}"
    response = client.post(
        "/accounts/signup/",
        {
            "email": "dora@example.org",
            "username": "dora",
            "password1": "a-long-and-unusual-passphrase",
            "password2": "a-long-and-unusual-passphrase",
            "next": next_url,
        },
    )
    assert response.status_code == 302 and response["Location"] == next_url
    assert [message.to for message in mailoutbox] == [["dora@example.org"]]
    assert "/accounts/confirm-email/" in mailoutbox[0].body
    assert client.get(next_url).status_code == 200
