"""What the database keeps of a session key and of a device_code is no use to someone who reads
it: the session table's key is no session, the device grant's code redeems no token. (Both keep
a digest; the rightful cookie and the rightful device_code go on working.)"""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib.sessions.backends.db import SessionStore as PlainSessionStore
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_device_grant_model

from accounts.testing import password_sign_in
from oauth import services
from oauth.testing import authorize_device, grant_of, let_interval_pass, make_grant, poll

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # conftest's make_user


def signed_in_with(cookie: str) -> bool:
    client = Client()
    client.cookies["sessionid"] = cookie
    return client.get("/tokens").status_code == 200  # a dashboard page; others are sent to sign in


def test_a_session_key_read_from_the_database_signs_nobody_in(alice):
    response, signed_in = password_sign_in("alice", PASSWORD)
    assert signed_in
    cookie = response.cookies["sessionid"].value

    stored = Session.objects.get().session_key

    assert not signed_in_with(stored)
    assert signed_in_with(cookie)
    client = Client()
    client.cookies["sessionid"] = cookie
    client.post("/accounts/logout/")
    assert not Session.objects.exists()  # signing out still deletes the row


def approved(client, user) -> str:
    device_code = authorize_device(client).json()["device_code"]
    services.device_grant_decide(
        actor=user, address="127.0.0.1", raw_code=grant_of(device_code).user_code, approve=True
    )
    return device_code


def test_a_device_code_read_from_the_database_redeems_no_token(client, alice):
    device_code = approved(client, alice)
    stored = get_device_grant_model().objects.get().device_code

    refused = poll(client, stored)

    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_grant"
    assert "access_token" not in refused.json()
    issued = poll(client, device_code)
    assert issued.status_code == 200
    assert issued.json()["access_token"].startswith("ltm_")


def test_a_device_code_read_from_the_database_cancels_nothing(client, alice):
    device_code = authorize_device(client).json()["device_code"]
    stored = get_device_grant_model().objects.get().device_code

    answer = client.post("/oauth/device/cancel", {"client_id": "ltm-cli", "device_code": stored})

    assert answer.json()["error"] == "invalid_grant"
    assert grant_of(device_code).status == get_device_grant_model().AUTHORIZATION_PENDING


def test_the_migration_keeps_sign_ins_under_way_and_people_signed_in(client, alice):
    """Rows written before the digests (plain codes and keys) are rewritten, not lost."""
    grant = make_grant()
    get_device_grant_model().objects.filter(pk=grant.pk).update(device_code="plain-code-of-an-old-grant")
    session = PlainSessionStore()  # Django's own store: the key as the table's key
    session.update(
        {
            "_auth_user_id": alice.pk,
            "_auth_user_backend": "django.contrib.auth.backends.ModelBackend",
            "_auth_user_hash": alice.get_session_auth_hash(),
        }
    )
    session.create()
    expired = PlainSessionStore()
    expired.set_expiry(timezone.now() - timedelta(days=1))
    expired.create()

    migration = importlib.import_module("accounts.migrations.0005_digests_of_device_codes_and_session_keys")
    migration.store_digests(apps, None)
    migration.store_digests(apps, None)  # a second run changes nothing

    assert grant_of("plain-code-of-an-old-grant").pk == grant.pk
    let_interval_pass("plain-code-of-an-old-grant")
    assert poll(client, "plain-code-of-an-old-grant").json()["error"] == "authorization_pending"
    assert signed_in_with(session.session_key)
    assert Session.objects.count() == 1  # the expired one went
    assert not Session.objects.filter(session_key=session.session_key).exists()
