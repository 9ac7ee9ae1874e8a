"""OAuth access tokens from the device flow as bearers on /v1, beside personal API tokens; the
devices list and revocation the dashboard uses; the purge task. (What a token's scope allows on
every app's endpoints: hub/tests/test_token_scopes.py.)"""

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_device_grant_model

from core.testing import ApiClient
from oauth.models import DeviceDetails
from oauth.tasks import purge_expired_oauth
from oauth.testing import authorize_device, device_token, grant_of, make_access_token

pytestmark = pytest.mark.django_db


def test_unknown_and_expired_oauth_tokens_are_invalid(client, alice):
    token = device_token(client, alice)
    get_access_token_model().objects.update(expires=timezone.now() - timedelta(seconds=1))
    response = ApiClient(token).get("/v1/packets")
    assert response.status_code == 401
    assert response.json() == {"error": "invalid token"}
    assert ApiClient("ltm_not-a-token").get("/v1/packets").status_code == 401


def test_use_is_recorded_at_most_once_a_minute_with_the_address(client, alice):
    api = ApiClient(device_token(client, alice))
    address = {"REMOTE_ADDR": "203.0.113.9"}
    stored = get_access_token_model().objects.get()

    def last_use():
        details = DeviceDetails.objects.get(access_token=stored)
        return details.last_used_at, details.last_used_address

    assert last_use() == (None, None)
    start = stored.updated + timedelta(minutes=5)
    with mock.patch("django.utils.timezone.now", return_value=start):
        api.get("/v1/packets", **address)
    assert last_use() == (start, "203.0.113.9")
    with mock.patch("django.utils.timezone.now", return_value=start + timedelta(seconds=30)):
        api.get("/v1/packets", **address)
    assert last_use() == (start, "203.0.113.9")
    later = start + timedelta(minutes=1, seconds=1)
    with mock.patch("django.utils.timezone.now", return_value=later):
        api.get("/v1/packets", **address)
    assert last_use() == (later, "203.0.113.9")


def test_an_oauth_token_without_device_details_records_its_use_on_the_token(alice):
    stored = make_access_token(alice, token="ltm_plain-oauth-token")
    start = stored.updated + timedelta(minutes=5)
    with mock.patch("django.utils.timezone.now", return_value=start):
        assert ApiClient("ltm_plain-oauth-token").get("/v1/packets").status_code == 200
    assert get_access_token_model().objects.get().updated == start


def test_purge_task_deletes_expired_grants_and_tokens_only(client, alice):
    live_token = device_token(client, alice)
    dead_token = device_token(client, alice)
    live_grant = grant_of(authorize_device(client).json()["device_code"])
    dead_grant = grant_of(authorize_device(client).json()["device_code"])
    now = timezone.now()
    get_device_grant_model().objects.exclude(pk=live_grant.pk).update(expires=now - timedelta(minutes=1))
    tokens = get_access_token_model().objects
    dead = ApiClient(dead_token)
    dead_id = tokens.order_by("-created").first().pk
    tokens.filter(pk=dead_id).update(expires=now - timedelta(minutes=1))

    deleted = purge_expired_oauth()

    assert deleted == 3  # the two redeemed grants and the dead pending one
    assert list(get_device_grant_model().objects.values_list("pk", flat=True)) == [live_grant.pk]
    assert not get_device_grant_model().objects.filter(pk=dead_grant.pk).exists()
    assert tokens.count() == 1 and not tokens.filter(pk=dead_id).exists()
    assert ApiClient(live_token).get("/v1/packets").status_code == 200
    assert dead.get("/v1/packets").status_code == 401


def test_purge_task_is_scheduled(settings):
    schedule = settings.CELERY_BEAT_SCHEDULE.values()
    assert any(entry["task"] == "accounts.tasks.purge_expired_oauth" for entry in schedule)
