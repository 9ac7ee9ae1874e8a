"""The dashboard's devices on the Tokens & devices page: listed, last use, revoked."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from accounts.models import ApiToken
from accounts.services import api_token_create
from core.testing import signed_in
from oauth.testing import make_access_token


def api_list(token):
    """GET /v1/packets with a bearer token, as the ltm client sends it."""
    return Client().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_last_used_reads_just_now_within_a_minute_then_how_long_ago(alice):
    fresh, _ = api_token_create(actor=alice, name="fresh")
    older, _ = api_token_create(actor=alice, name="older")
    ApiToken.objects.filter(pk=fresh.pk).update(last_used_at=timezone.now() - timedelta(seconds=20))
    ApiToken.objects.filter(pk=older.pk).update(last_used_at=timezone.now() - timedelta(minutes=5, seconds=5))
    make_access_token(alice)

    body = signed_in(alice).get("/tokens").content.decode()

    assert body.count("just now") == 2  # the fresh token and the device signed in a moment ago
    assert "5\xa0minutes ago" in body
    assert "0\xa0minutes" not in body


def test_devices_are_listed_and_revoked(alice):
    device = make_access_token(alice)
    client = signed_in(alice)
    assert api_list("device-token-value").status_code == 200

    body = client.get("/tokens").content.decode()
    assert f"/devices/{device.pk}/revoke" in body

    asked = client.post(f"/devices/{device.pk}/revoke")
    assert "Sign “ltm command-line client” out?" in asked.content.decode()
    assert api_list("device-token-value").status_code == 200, "nothing happens before the confirmation"

    client.post(f"/devices/{device.pk}/revoke", {"confirmed": "yes"})
    assert f"/devices/{device.pk}/revoke" not in client.get("/tokens").content.decode()
    response = api_list("device-token-value")
    assert response.status_code == 401
    assert response.json() == {"error": "invalid token"}


@pytest.mark.parametrize("data", [{}, {"confirmed": "yes"}])
def test_revoking_someone_elses_device_is_404(alice, bob, data):
    device = make_access_token(bob)
    assert signed_in(alice).post(f"/devices/{device.pk}/revoke", data).status_code == 404
    assert signed_in(alice).post("/devices/not-a-number/revoke", data).status_code == 404
    assert get_access_token_model().objects.filter(pk=device.pk).exists()


def test_device_revoke_question_shows_the_command_as_code(alice):
    device = make_access_token(alice)
    asked = signed_in(alice).post(f"/devices/{device.pk}/revoke").content.decode()
    assert "runs <code>ltm auth</code> again" in asked
    assert "`" not in asked
