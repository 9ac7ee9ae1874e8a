"""The OAuth endpoints of the device flow, over HTTP as the `ltm` client calls them."""

import hashlib
from datetime import timedelta

import pytest
from oauth2_provider.models import get_access_token_model, get_application_model, get_device_grant_model

from oauth import device_flow, services
from oauth.testing import authorize_device, expire, form_post, grant_of, let_interval_pass, poll

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(client):
    return authorize_device(client).json()


def approve(device_code, user):
    grant = grant_of(device_code)
    services.device_grant_decide(actor=user, address="127.0.0.1", raw_code=grant.user_code, approve=True)


# --- the ltm-cli application -----------------------------------------------------------------


def test_ltm_cli_exists_from_the_migrations_as_a_public_device_client():
    app = get_application_model().objects.get(client_id="ltm-cli")
    assert app.client_type == "public"
    assert app.authorization_grant_type == "urn:ietf:params:oauth:grant-type:device_code"


# --- POST /oauth/authorize_device ------------------------------------------------------------


def test_authorize_device_answers_the_rfc8628_fields(client):
    response = authorize_device(client)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {
        "device_code",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
        "expires_in",
        "interval",
    }
    assert body["expires_in"] == 600
    assert body["interval"] == 5
    assert body["verification_uri"] == "http://testserver/device"
    assert body["verification_uri_complete"] == f"http://testserver/device?user_code={body['user_code']}"
    assert len(body["device_code"]) >= 30
    grant = grant_of(body["device_code"])
    assert grant.scope == "read write"
    assert grant.status == grant.AUTHORIZATION_PENDING


def test_verification_uri_uses_the_configured_external_url(client, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    body = authorize_device(client).json()
    assert body["verification_uri"] == "https://hub.example.org/device"
    assert body["verification_uri_complete"].startswith("https://hub.example.org/device?user_code=")


def test_user_codes_are_8_consonants_from_the_rfc_alphabet(client):
    # (20: the per-address limit of /oauth/authorize_device is 20 a minute)
    codes = [authorize_device(client).json()["user_code"] for _ in range(20)]
    for code in codes:
        assert len(code) == 8
        assert set(code) <= set("BCDFGHJKLMNPQRSTVWXZ")
    assert len(set(codes)) == len(codes)
    # and the generator itself, over many draws: never a vowel, a digit or a look-alike
    drawn = "".join(device_flow.new_user_code() for _ in range(500))
    assert not set(drawn) & set("AEIOUY0123456789")


def test_form_type_with_a_charset_is_accepted(client):
    response = form_post(
        client,
        "/oauth/authorize_device",
        {"client_id": "ltm-cli", "scope": "read write"},
        content_type="application/x-www-form-urlencoded; charset=utf-8",
    )
    assert response.status_code == 200, response.content


def test_json_body_is_refused_with_invalid_request(client):
    response = client.post("/oauth/authorize_device", data={"client_id": "ltm-cli"}, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_request",
        "error_description": "Content-Type must be application/x-www-form-urlencoded",
    }
    assert not get_device_grant_model().objects.exists()


def test_unknown_client_is_invalid_client(client):
    response = authorize_device(client, client_id="not-a-client")
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


def test_unknown_scope_is_refused_at_once(client):
    response = authorize_device(client, scope="read admin")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_scope"
    assert not get_device_grant_model().objects.exists()


def test_missing_scope_gets_read_write(client):
    body = authorize_device(client, scope=None).json()
    assert grant_of(body["device_code"]).scope == "read write"


# --- POST /oauth/token: every answer of RFC 8628 section 3.5 --------------------------------


def test_pending_grant_answers_authorization_pending(client, started):
    let_interval_pass(started["device_code"])
    response = poll(client, started["device_code"])
    assert response.status_code == 400
    assert response.json()["error"] == "authorization_pending"
    assert response["Cache-Control"] == "no-store"


def test_polling_faster_than_the_interval_answers_slow_down_and_the_interval_grows(client, started):
    code = started["device_code"]
    response = poll(client, code)  # right after the authorization response: too fast
    assert response.json()["error"] == "slow_down"
    assert grant_of(code).interval == 10
    let_interval_pass(code, seconds=5)  # the old interval is no longer enough
    assert poll(client, code).json()["error"] == "slow_down"
    let_interval_pass(code, seconds=15)
    assert poll(client, code).json()["error"] == "authorization_pending"
    assert poll(client, code).json()["error"] == "slow_down"  # again at once


def test_denied_grant_answers_access_denied(client, started, alice):
    grant = grant_of(started["device_code"])
    services.device_grant_decide(actor=alice, address="127.0.0.1", raw_code=grant.user_code, approve=False)
    response = poll(client, started["device_code"])
    assert response.status_code == 400
    assert response.json()["error"] == "access_denied"


def test_expired_pending_grant_answers_expired_token(client, started):
    expire(started["device_code"])
    let_interval_pass(started["device_code"])
    assert poll(client, started["device_code"]).json()["error"] == "expired_token"


def test_approved_but_expired_grant_answers_expired_token(client, started, alice):
    approve(started["device_code"], alice)
    expire(started["device_code"])
    assert poll(client, started["device_code"]).json()["error"] == "expired_token"
    assert not get_access_token_model().objects.exists()


def test_unknown_device_code_is_invalid_grant(client, started):
    response = poll(client, "no-such-device-code")
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_missing_device_code_is_invalid_request(client):
    response = form_post(
        client, "/oauth/token", {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "client_id": "ltm-cli"}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_unknown_client_on_poll_is_invalid_client(client, started):
    response = poll(client, started["device_code"], client_id="someone-else")
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"


def test_device_code_of_another_client_is_invalid_grant(client, started, alice):
    get_application_model().objects.create(
        client_id="other-cli",
        name="other",
        client_type="public",
        authorization_grant_type="urn:ietf:params:oauth:grant-type:device_code",
    )
    approve(started["device_code"], alice)
    response = poll(client, started["device_code"], client_id="other-cli")
    assert response.json()["error"] == "invalid_grant"
    assert not get_access_token_model().objects.exists()


def test_approved_grant_yields_one_long_lived_token_stored_only_as_a_checksum(client, started, alice):
    approve(started["device_code"], alice)
    response = poll(client, started["device_code"])
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["scope"] == "read write"
    assert "refresh_token" not in body
    token = body["access_token"]
    assert token.startswith("ltm_")
    assert body["expires_in"] == 3650 * 24 * 3600

    stored = get_access_token_model().objects.get()
    assert stored.user == alice
    assert stored.token == ""  # no plaintext at rest
    assert stored.token_checksum == hashlib.sha256(token.encode()).hexdigest()
    assert stored.expires - stored.created > timedelta(days=3000)

    # one device_code, one token: the next poll is refused and mints nothing
    let_interval_pass(started["device_code"])
    again = poll(client, started["device_code"])
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
    assert get_access_token_model().objects.count() == 1
