"""oauth.services called directly: each change to devices, device grants and bearer tokens' last
use, with its refusals."""

from datetime import timedelta
from unittest import mock

import pytest
from django.test import RequestFactory
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_device_grant_model

from accounts.models import ApiToken
from accounts.services import api_token_create
from core.errors import BadRequest, NotFound, TooManyRequests, Unauthorized
from core.testing import ApiClient
from oauth import services
from oauth.authentication import authenticate_bearer
from oauth.device_flow import ALREADY_REDEEMED, REDEEMED
from oauth.testing import make_access_token, make_grant

pytestmark = pytest.mark.django_db

ADDRESS = "127.0.0.1"
USED = "This code has already been used. Run `ltm auth` again to get a new one."


def at(moment):
    """The hub's clock at `moment`."""
    return mock.patch("django.utils.timezone.now", return_value=moment)


def test_oauth_token_touch_records_the_use_now(alice):
    token = make_access_token(alice)
    moment = token.updated + timedelta(minutes=5)
    with at(moment):
        services.oauth_token_touch(token_id=token.pk)
    assert get_access_token_model().objects.get(pk=token.pk).updated == moment


@pytest.mark.parametrize("kind", ["api", "oauth"])
def test_a_bearer_records_its_use_at_most_once_a_minute(alice, kind):
    if kind == "api":
        token, plaintext = api_token_create(actor=alice, name="laptop")
        last_use = lambda: ApiToken.objects.get(pk=token.pk).last_used_at  # noqa: E731
        start = timezone.now()
    else:
        token, plaintext = make_access_token(alice), "device-token-value"
        last_use = lambda: get_access_token_model().objects.get(pk=token.pk).updated  # noqa: E731
        start = token.updated + timedelta(minutes=5)
    for moment, recorded in [
        (start, start),
        (start + timedelta(seconds=59), start),
        (start + timedelta(minutes=1), start + timedelta(minutes=1)),
    ]:
        with at(moment):
            request = RequestFactory().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {plaintext}")
            user, bearer = authenticate_bearer(request, resource="/v1")
        assert (user.pk, bearer.kind) == (alice.pk, kind)
        assert last_use() == recorded


def test_device_revoke_takes_effect_at_once_and_hides_others_devices(alice, bob):
    device = make_access_token(alice)
    api = ApiClient(device.token)
    assert api.get("/v1/packets").status_code == 200

    # "²" is a digit to str.isdigit() but not to int()
    for actor, device_id in [(bob, device.pk), (alice, "not-an-id"), (alice, "-1"), (alice, "²")]:
        with pytest.raises(NotFound) as refused:
            services.device_revoke(actor=actor, device_id=device_id)
        assert refused.value.message == "device not found"
    assert api.get("/v1/packets").status_code == 200

    services.device_revoke(actor=alice, device_id=str(device.pk))
    assert api.get("/v1/packets").status_code == 401
    with pytest.raises(NotFound):
        services.device_revoke(actor=alice, device_id=device.pk)


@pytest.mark.parametrize("approve", [True, False])
def test_device_grant_decide_records_the_decision_and_who_made_it(alice, approve):
    grant = make_grant()
    decided = services.device_grant_decide(actor=alice, address=ADDRESS, raw_code="bcdf-ghjk", approve=approve)
    assert decided.pk == grant.pk
    stored = get_device_grant_model().objects.get(pk=grant.pk)
    assert stored.status == (grant.AUTHORIZED if approve else grant.DENIED)
    assert stored.user == alice


def test_device_grant_decide_decides_once(alice, bob):
    grant = make_grant()
    services.device_grant_decide(actor=alice, address=ADDRESS, raw_code=grant.user_code, approve=True)
    with pytest.raises(BadRequest) as refused:
        services.device_grant_decide(actor=bob, address=ADDRESS, raw_code=grant.user_code, approve=False)
    assert refused.value.message == USED
    stored = get_device_grant_model().objects.get(pk=grant.pk)
    assert (stored.status, stored.user) == (grant.AUTHORIZED, alice)


@pytest.mark.parametrize(
    ("raw_code", "message"),
    [
        ("BCDF-GHJX", "We don't know this code. Check it against the one your terminal shows."),
        ("BCDF-GHJK", "This code has expired (codes last 10 minutes). Run `ltm auth` again to get a new one."),
    ],
)
def test_device_grant_decide_refuses_unknown_and_expired_codes(alice, raw_code, message):
    grant = make_grant(expires_in=timedelta(seconds=-1))
    with pytest.raises(BadRequest) as refused:
        services.device_grant_decide(actor=alice, address=ADDRESS, raw_code=raw_code, approve=True)
    assert refused.value.message == message
    assert get_device_grant_model().objects.get(pk=grant.pk).status == grant.AUTHORIZATION_PENDING


def test_device_grant_decide_refuses_everything_past_ten_wrong_codes(alice):
    grant = make_grant()
    for _ in range(10):
        with pytest.raises(BadRequest):
            services.device_grant_decide(actor=alice, address=ADDRESS, raw_code="BCDF-GHJX", approve=True)
    with pytest.raises(TooManyRequests) as refused:
        services.device_grant_decide(actor=alice, address=ADDRESS, raw_code=grant.user_code, approve=True)
    assert refused.value.message == "Too many wrong codes. Wait up to 60 minutes, then try again."
    assert get_device_grant_model().objects.get(pk=grant.pk).status == grant.AUTHORIZATION_PENDING


def test_device_grant_poll_returns_an_authorized_grant():
    grant = make_grant(status=get_device_grant_model().AUTHORIZED)
    assert services.device_grant_poll(device_code="device-code", client_id="ltm-cli") == grant


@pytest.mark.parametrize(
    ("device_code", "client_id", "error", "code", "message"),
    [
        ("device-code", "", BadRequest, "invalid_request", "client_id is missing"),
        ("device-code", "someone-else", Unauthorized, "invalid_client", "unknown client_id"),
        ("", "ltm-cli", BadRequest, "invalid_request", "device_code is missing"),
        ("other-code", "ltm-cli", BadRequest, "invalid_grant", "unknown device_code"),
    ],
)
def test_device_grant_poll_refuses_a_bad_request(device_code, client_id, error, code, message):
    make_grant(status=get_device_grant_model().AUTHORIZED)
    with pytest.raises(error) as refused:
        services.device_grant_poll(device_code=device_code, client_id=client_id)
    assert (type(refused.value), refused.value.code, refused.value.message) == (error, code, message)


@pytest.mark.parametrize(
    ("status", "expires_in", "code", "message"),
    [
        (REDEEMED, None, "invalid_grant", ALREADY_REDEEMED),
        ("denied", None, "access_denied", "the sign-in was denied"),
        ("expired", None, "expired_token", "the device code expired; start again"),
        ("authorized", timedelta(seconds=-1), "expired_token", "the device code expired; start again"),
    ],
)
def test_device_grant_poll_refuses_a_grant_that_gives_no_token(status, expires_in, code, message):
    make_grant(status=status, expires_in=expires_in)
    with pytest.raises(BadRequest) as refused:
        services.device_grant_poll(device_code="device-code", client_id="ltm-cli")
    assert (refused.value.code, refused.value.message) == (code, message)


def test_device_grant_poll_of_a_pending_grant_asks_to_wait_and_slows_down_a_hurried_client():
    grant = make_grant()
    model = get_device_grant_model()
    model.objects.filter(pk=grant.pk).update(last_checked=timezone.now() - timedelta(seconds=5))
    with pytest.raises(BadRequest) as waiting:
        services.device_grant_poll(device_code="device-code", client_id="ltm-cli")
    assert (waiting.value.code, waiting.value.message) == ("authorization_pending", "waiting for the person to approve")

    with pytest.raises(BadRequest) as hurried:  # again at once
        services.device_grant_poll(device_code="device-code", client_id="ltm-cli")
    assert (hurried.value.code, hurried.value.message) == ("slow_down", "poll at most every 10 seconds")
    assert model.objects.get(pk=grant.pk).interval == 10


def test_device_grant_redeem_claims_an_authorized_grant_once():
    model = get_device_grant_model()
    grant = make_grant(status=model.AUTHORIZED)
    assert services.device_grant_redeem(grant=grant) is True
    assert services.device_grant_redeem(grant=grant) is False
    assert model.objects.get(pk=grant.pk).status == REDEEMED


def test_device_grant_redeem_refuses_a_grant_nobody_approved():
    grant = make_grant()
    assert services.device_grant_redeem(grant=grant) is False
    assert get_device_grant_model().objects.get(pk=grant.pk).status == grant.AUTHORIZATION_PENDING


def test_device_grants_purge_deletes_only_grants_past_their_expiry():
    make_grant(device_code="live", user_code="BCDFGHJK")
    make_grant(device_code="dead", user_code="BCDFGHJL", status=REDEEMED, expires_in=timedelta(seconds=-1))
    assert services.device_grants_purge() == 1
    assert list(get_device_grant_model().objects.values_list("user_code", flat=True)) == ["BCDFGHJK"]
