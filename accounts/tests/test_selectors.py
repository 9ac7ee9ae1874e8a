"""accounts.selectors called directly: what a viewer sees of their tokens, and the rules of claim
links. (Devices and device codes: oauth/tests/test_selectors.py.)"""

from unittest import mock

import pytest

from accounts import selectors, services
from accounts.testing import passwordless_user
from core.errors import Gone

pytestmark = pytest.mark.django_db


def test_api_tokens_are_listed_and_found_only_for_their_owner(alice, bob):
    mine, _ = services.api_token_create(actor=alice, name="laptop")
    theirs, _ = services.api_token_create(actor=bob, name="laptop")
    assert list(selectors.api_token_list(viewer=alice)) == [mine]
    assert selectors.api_token_get(viewer=alice, token_id=mine.pk) == mine
    assert selectors.api_token_get(viewer=alice, token_id=theirs.pk) is None


def test_password_fingerprint_changes_with_the_password(alice):
    before = selectors.password_fingerprint(alice)
    alice.set_password("another passphrase")
    assert selectors.password_fingerprint(alice) != before


@pytest.fixture
def joiner(db):
    return passwordless_user()[0]


def test_claim_code_user_names_the_user_of_a_fresh_code(joiner):
    code, _ = services.claim_code_create(actor=joiner)
    assert selectors.claim_code_user(code=code) == joiner
    assert selectors.claim_code_user(code=code, lock=True) == joiner


def test_claim_code_user_refuses_a_tampered_code_or_not_a_code(joiner):
    code, _ = services.claim_code_create(actor=joiner)
    for bad in (code[:-3] + "xyz", "not-a-code", ""):
        with pytest.raises(Gone) as refused:
            selectors.claim_code_user(code=bad)
        assert refused.value.message == selectors.CLAIM_GONE


def test_claim_code_user_refuses_a_code_an_hour_old(joiner):
    code, expires_at = services.claim_code_create(actor=joiner)
    with mock.patch("django.utils.timezone.now", return_value=expires_at):
        with pytest.raises(Gone):
            selectors.claim_code_user(code=code)


def test_claim_code_user_refuses_once_the_account_has_a_password_or_is_deactivated(joiner):
    code, _ = services.claim_code_create(actor=joiner)
    joiner.set_password("a long and unusual passphrase")
    joiner.save()
    with pytest.raises(Gone):
        selectors.claim_code_user(code=code)

    other, _ = passwordless_user(username="erin")
    code, _ = services.claim_code_create(actor=other)
    other.is_active = False
    other.save()
    with pytest.raises(Gone):
        selectors.claim_code_user(code=code)
