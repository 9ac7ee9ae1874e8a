"""accounts.services called directly: each change to people, tokens and claim links, with its
refusals. (Devices and device grants: oauth/tests/test_services.py.) (What deleting an account does to teams and packets is tested
with those apps: teams/tests/test_services.py, packets/tests/test_services.py.)"""

from datetime import timedelta
from unittest import mock

import pytest
from allauth.account.models import EmailAddress
from django.utils import timezone

from accounts import services
from accounts.models import ApiToken, User, hash_token
from accounts.selectors import CLAIM_GONE, claim_code_user
from accounts.testing import passwordless_user
from core.errors import BadRequest, Conflict, Gone, NotFound
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


# Devices


# Device grants: decided once, redeemed once


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
        (
            "ALICE@example.com",
            PASSWORD,
            Conflict,
            "this email address belongs to another account; sign in with it instead",
        ),
        ("dana@example.org", "short", BadRequest, "This password is too short. It must contain at least 8 characters."),
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
