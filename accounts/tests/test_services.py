"""accounts.services called directly: each change to people, tokens, devices, device grants and
claim links, with its refusals. (What deleting an account does to teams and packets is tested
with those apps: teams/tests/test_services.py, packets/tests/test_services.py.)"""

from datetime import timedelta
from unittest import mock

import pytest
from allauth.account.models import EmailAddress
from django.test import RequestFactory
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_device_grant_model

from accounts import services
from accounts.authentication import authenticate_bearer
from accounts.device_flow import ALREADY_REDEEMED, REDEEMED
from accounts.models import ApiToken, User, hash_token
from accounts.selectors import CLAIM_GONE, claim_code_user
from accounts.testing import make_access_token, make_grant, passwordless_user
from core.errors import BadRequest, Conflict, Gone, NotFound, TooManyRequests, Unauthorized
from core.testing import ApiClient

pytestmark = pytest.mark.django_db

ADDRESS = "127.0.0.1"
USED = "This code has already been used. Run `ltm auth` again to get a new one."


def at(moment):
    """The hub's clock at `moment`."""
    return mock.patch("django.utils.timezone.now", return_value=moment)


# People


def test_user_upsert_creates_a_user_without_a_usable_password_by_default():
    user, created = services.user_upsert(username="erin")
    assert created
    assert user.email == "erin@example.com"
    assert not User.objects.get(username="erin").has_usable_password()


def test_user_upsert_updates_email_and_password_of_an_existing_user(alice):
    user, created = services.user_upsert(username="alice", password="another passphrase", email="a@example.org")
    assert not created and user.pk == alice.pk
    stored = User.objects.get(pk=alice.pk)
    assert stored.email == "a@example.org"
    assert stored.check_password("another passphrase")


def test_user_update_display_strips_and_refuses_more_than_80_characters(alice):
    services.user_update_display(actor=alice, display="  Alice L. ")
    assert User.objects.get(pk=alice.pk).display == "Alice L."

    with pytest.raises(BadRequest) as refused:
        services.user_update_display(actor=alice, display="x" * 81)
    assert refused.value.message == "a display name is at most 80 characters"
    assert User.objects.get(pk=alice.pk).display == "Alice L."


def test_user_delete_takes_the_account_and_its_tokens(alice, bob, make_token):
    make_token(alice)
    make_token(bob)
    services.user_delete(actor=alice)
    assert not User.objects.filter(pk=alice.pk).exists()
    assert list(ApiToken.objects.values_list("user__username", flat=True)) == ["bob"]


# Personal API tokens


def test_new_token_plaintext_is_prefixed_and_never_repeats():
    # The prefix lets secret scanners recognise a token; it never starts with "-", which the
    # client would take for an option.
    tokens = {services.new_token_plaintext() for _ in range(3)}
    assert len(tokens) == 3
    assert all(token.startswith("ltm_") and len(token) == 4 + 43 for token in tokens)


def test_api_token_create_stores_only_a_hash_and_returns_the_plaintext_once(alice):
    token, plaintext = services.api_token_create(actor=alice, name=" laptop ")
    stored = ApiToken.objects.get(pk=token.pk)
    assert (stored.user, stored.name) == (alice, "laptop")
    assert plaintext.startswith("ltm_") and plaintext not in (stored.token_hash, stored.hint)
    assert stored.token_hash == hash_token(plaintext)
    assert stored.hint == plaintext[:8]


@pytest.mark.parametrize(
    ("name", "message"),
    [("  ", "a token needs a name, e.g. laptop or ci"), ("x" * 65, "a token name is at most 64 characters")],
)
def test_api_token_create_refuses_a_missing_or_long_name(alice, name, message):
    with pytest.raises(BadRequest) as refused:
        services.api_token_create(actor=alice, name=name)
    assert refused.value.message == message
    assert not ApiToken.objects.exists()


def test_api_token_revoke_once_and_only_ones_own(alice, bob):
    token, plaintext = services.api_token_create(actor=alice, name="laptop")
    with pytest.raises(NotFound) as refused:
        services.api_token_revoke(actor=bob, token_id=token.pk)
    assert refused.value.message == "token not found"
    assert ApiClient(plaintext).get("/v1/packets").status_code == 200

    services.api_token_revoke(actor=alice, token_id=token.pk)
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    assert ApiClient(plaintext).get("/v1/packets").status_code == 401
    with pytest.raises(NotFound):
        services.api_token_revoke(actor=alice, token_id=token.pk)


def test_api_token_touch_records_the_use_now(alice):
    token, _ = services.api_token_create(actor=alice, name="laptop")
    moment = timezone.now() + timedelta(minutes=3)
    with at(moment):
        services.api_token_touch(token_id=token.pk)
    assert ApiToken.objects.get(pk=token.pk).last_used_at == moment


def test_oauth_token_touch_records_the_use_now(alice):
    token = make_access_token(alice)
    moment = token.updated + timedelta(minutes=5)
    with at(moment):
        services.oauth_token_touch(token_id=token.pk)
    assert get_access_token_model().objects.get(pk=token.pk).updated == moment


@pytest.mark.parametrize("kind", ["api", "oauth"])
def test_a_bearer_records_its_use_at_most_once_a_minute(alice, kind):
    if kind == "api":
        token, plaintext = services.api_token_create(actor=alice, name="laptop")
        last_use = lambda: ApiToken.objects.get(pk=token.pk).last_used_at  # noqa: E731
        start = timezone.now()
    else:
        token, plaintext = make_access_token(alice), "device-token-value"
        last_use = lambda: get_access_token_model().objects.get(pk=token.pk).updated  # noqa: E731
        start = token.updated + timedelta(minutes=5)
    for moment, recorded in [(start, start), (start + timedelta(seconds=59), start),
                             (start + timedelta(minutes=1), start + timedelta(minutes=1))]:
        with at(moment):
            request = RequestFactory().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {plaintext}")
            user, bearer = authenticate_bearer(request, resource="/v1")
        assert (user.pk, bearer.kind) == (alice.pk, kind)
        assert last_use() == recorded


# Devices


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


# Device grants: decided once, redeemed once


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
    grant = make_grant(status=status, expires_in=expires_in)
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


# Claim links: a code names a password-less account and is spent by the claim

PASSWORD = "a long and unusual passphrase"


@pytest.fixture
def joiner(db):
    return passwordless_user()[0]


def test_claim_code_create_names_the_user_for_an_hour(joiner):
    before = timezone.now()
    code, expires_at = services.claim_code_create(actor=joiner)
    assert claim_code_user(code=code) == joiner
    assert timedelta(minutes=59) < expires_at - before <= timedelta(hours=1, seconds=1)


def test_claim_code_create_refuses_an_account_with_a_password(alice):
    with pytest.raises(Conflict) as refused:
        services.claim_code_create(actor=alice)
    assert refused.value.message == "this account already has a password; sign in on the hub's web page instead"


def test_account_claim_sets_the_password_and_the_primary_email_and_spends_the_code(joiner):
    code, _ = services.claim_code_create(actor=joiner)

    user = services.account_claim(code=code, email=" dana@example.org ", password=PASSWORD)

    stored = User.objects.get(pk=joiner.pk)
    assert user == stored
    assert stored.check_password(PASSWORD)
    assert stored.email == "dana@example.org"
    address = EmailAddress.objects.get(user=stored)
    assert (address.email, address.primary, address.verified) == ("dana@example.org", True, False)
    with pytest.raises(Gone) as spent:
        services.account_claim(code=code, email="other@example.org", password="another long passphrase")
    assert spent.value.message == CLAIM_GONE
    assert User.objects.get(pk=joiner.pk).check_password(PASSWORD)


@pytest.mark.parametrize(
    ("email", "password", "error", "message"),
    [
        ("  ", PASSWORD, BadRequest, "an email address is needed to sign in on the web"),
        ("ALICE@example.com", PASSWORD, Conflict,
         "this email address belongs to another account; sign in with it instead"),
        ("dana@example.org", "short", BadRequest,
         "This password is too short. It must contain at least 8 characters."),
    ],
)
def test_account_claim_refuses_bad_input_and_changes_nothing(alice, joiner, email, password, error, message):
    code, _ = services.claim_code_create(actor=joiner)
    with pytest.raises(error) as refused:
        services.account_claim(code=code, email=email, password=password)
    assert (type(refused.value), refused.value.message) == (error, message)
    stored = User.objects.get(pk=joiner.pk)
    assert not stored.has_usable_password() and stored.email == ""
    assert not EmailAddress.objects.filter(user=stored).exists()
    assert claim_code_user(code=code) == stored  # the code still works
