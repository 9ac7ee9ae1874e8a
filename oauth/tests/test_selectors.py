"""oauth.selectors called directly: what a viewer sees of their devices, and the rules of the
device-code page."""

from datetime import timedelta

import pytest
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from core.errors import BadRequest, TooManyRequests
from oauth import selectors
from oauth.device_flow import REDEEMED
from oauth.testing import make_access_token, make_grant

pytestmark = pytest.mark.django_db

UNKNOWN = "We don't know this code. Check it against the one your terminal shows."
USED = "This code has already been used. Run `ltm auth` again to get a new one."
EXPIRED = "This code has expired (codes last 10 minutes). Run `ltm auth` again to get a new one."


UNKNOWN = "We don't know this code. Check it against the one your terminal shows."


USED = "This code has already been used. Run `ltm auth` again to get a new one."


EXPIRED = "This code has expired (codes last 10 minutes). Run `ltm auth` again to get a new one."


def test_device_list_shows_only_the_viewers_live_tokens(alice, bob):
    token = make_access_token(alice)
    make_access_token(bob, token="bobs-device")
    devices = selectors.device_list(viewer=alice)
    assert len(devices) == 1
    listed = devices[0]
    assert listed.id == str(token.pk)
    assert listed.application_name == "ltm command-line client"
    assert listed.scopes == ("read", "write")
    assert listed.last_used == token.updated and listed.expires == token.expires

    get_access_token_model().objects.filter(user=alice).update(expires=timezone.now() - timedelta(seconds=1))
    assert selectors.device_list(viewer=alice) == []


@pytest.mark.parametrize(
    ("status", "expires_in", "problem"),
    [
        ("authorization-pending", None, None),
        ("authorized", None, USED),
        ("denied", None, USED),
        (REDEEMED, None, USED),
        ("expired", None, EXPIRED),
        ("authorization-pending", timedelta(seconds=-1), EXPIRED),
    ],
)
def test_device_grant_problem_says_why_a_code_cannot_be_decided(status, expires_in, problem):
    assert selectors.device_grant_problem(make_grant(status=status, expires_in=expires_in)) == problem


def test_device_grant_problem_of_no_grant_is_an_unknown_code():
    assert selectors.device_grant_problem(None) == UNKNOWN


def test_device_grant_find_takes_the_code_as_people_type_it(alice):
    grant = make_grant(user_code="BCDFGHJK")
    assert selectors.device_grant_find(viewer=alice, address="127.0.0.1", raw_code=" bcdf-ghjk ") == grant


def test_device_grant_find_counts_wrong_codes_per_person_and_per_address(alice, bob, make_user):
    make_grant(user_code="BCDFGHJK")
    for _ in range(10):
        with pytest.raises(BadRequest) as refused:
            selectors.device_grant_find(viewer=alice, address="10.0.0.1", raw_code="not a code")
        assert refused.value.message == UNKNOWN
    with pytest.raises(TooManyRequests):
        selectors.device_grant_find(viewer=alice, address="10.0.0.2", raw_code="BCDF-GHJK")
    # Someone else at that address still gets in, until the address's own limit (30).
    assert selectors.device_grant_find(viewer=bob, address="10.0.0.1", raw_code="BCDF-GHJK")
    for index in range(2):
        person = make_user(f"guesser{index}")
        for _ in range(10):
            with pytest.raises(BadRequest):
                selectors.device_grant_find(viewer=person, address="10.0.0.1", raw_code="BCDF-GHJX")
    with pytest.raises(TooManyRequests):
        selectors.device_grant_find(viewer=bob, address="10.0.0.1", raw_code="BCDF-GHJK")


def test_device_grant_application_is_the_grants_client():
    grant = make_grant()
    assert selectors.device_grant_application(grant=grant).client_id == "ltm-cli"
    grant.client_id = "gone"
    assert selectors.device_grant_application(grant=grant) is None
