"""Single sign-on's rules on this side (teams.sso, teams.adapter): with LTM_OIDC_ONLY the sign-in
page leads with the provider and a password signs in superusers alone; no password sign-up; and
each refusal of a sign-in says which check failed; an existing account is matched only by an
address the hub has verified too. The journey between two hubs is tests/e2e/test_sso.py."""

import jwt
import pytest
from allauth.account.models import EmailAddress
from allauth.core import context
from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.helpers import complete_social_login
from allauth.socialaccount.models import SocialAccount, SocialLogin
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client, RequestFactory

from accounts.models import User
from accounts.testing import make_admin, password_sign_in
from teams.sso import refusal_reason

pytestmark = pytest.mark.django_db
PASSWORD = "correct-horse-battery"


@pytest.fixture
def provider(settings):
    settings.LTM_OIDC_NAME = "Acme ID"
    settings.SOCIALACCOUNT_PROVIDERS = {
        **settings.SOCIALACCOUNT_PROVIDERS,
        "openid_connect": {
            **settings.SOCIALACCOUNT_PROVIDERS["openid_connect"],
            "APPS": [
                {
                    "provider_id": "sso",
                    "name": "Acme ID",
                    "client_id": "hub",
                    "secret": "s",
                    "settings": {"server_url": "https://id.example"},
                }
            ],
        },
    }
    return settings


def test_the_sign_in_and_sign_up_pages_offer_the_provider(provider):
    for path, verb in (("/accounts/login/", "Sign in"), ("/accounts/signup/", "Sign up")):
        body = Client().get(path).content.decode()
        assert f">{verb} with Acme ID</button>" in body
        assert 'action="/accounts/oidc/sso/login/"' in body


def test_without_a_provider_there_is_no_button():
    assert "/accounts/oidc/" not in Client().get("/accounts/login/").content.decode()


def test_single_sign_on_only_keeps_passwords_for_superusers(provider, alice, bob):
    provider.LTM_OIDC_ONLY = True
    body = Client().get("/accounts/login/").content.decode()
    assert body.index("Sign in with Acme ID") < body.index("Administrator sign-in with a password")
    assert "Create an account" not in body
    response, signed_in_now = password_sign_in("bob", PASSWORD)
    assert not signed_in_now and "This hub signs people in through Acme ID" in response.content.decode()
    make_admin(alice)
    assert password_sign_in("alice", PASSWORD)[1]


def test_single_sign_on_only_closes_password_sign_up(provider):
    provider.LTM_OIDC_ONLY = True
    fields = {"username": "eve", "email": "eve@example.org", "password1": PASSWORD, "password2": PASSWORD}
    Client().post("/accounts/signup/", fields)
    assert not User.objects.filter(username="eve").exists()


def test_each_refusal_says_which_check_failed():
    replayed = refusal_reason(error="unknown", exception=None, extra_context={"state_id": "x"})
    assert replayed[0] == "This sign-in link was already used"
    try:
        raise OAuth2Error("Invalid id_token") from jwt.InvalidSignatureError("Signature verification failed")
    except OAuth2Error as exc:
        assert refusal_reason(error="unknown", exception=exc, extra_context={})[0] == (
            "The provider's answer is not signed by it"
        )
    issuer = OAuth2Error("the provider's discovery document names the issuer 'x', not 'y'")
    assert refusal_reason(error="unknown", exception=issuer, extra_context={})[0] == (
        "The provider is not the one this hub trusts"
    )
    assert "refused the sign-in (denied)" in refusal_reason(error="denied", exception=None, extra_context={})[1]


def provider_says(email: str):
    """The provider's answer as allauth hands it on, for a person whose address it verified: (the
    request of its callback, the hub's answer)."""
    request = RequestFactory().get("/accounts/oidc/sso/login/callback/")
    request.user, request.session = AnonymousUser(), SessionStore()
    request._messages = FallbackStorage(request)
    sociallogin = SocialLogin(
        provider=get_adapter().get_provider(request, provider="sso"),
        user=User(username="", email=email),
        account=SocialAccount(provider="sso", uid="subject-1", extra_data={}),
        email_addresses=[EmailAddress(email=email, verified=True, primary=True)],
    )
    with context.request_context(request):
        return request, complete_social_login(request, sociallogin)


def test_a_verified_address_signs_in_to_the_account_that_verified_it(provider, alice):
    EmailAddress.objects.create(user=alice, email="alice@example.org", verified=True, primary=True)
    request, answer = provider_says("alice@example.org")
    assert answer.status_code == 302
    assert request.session["_auth_user_id"] == str(alice.pk)
    assert SocialAccount.objects.get(uid="subject-1").user == alice


def test_an_account_whose_address_the_hub_has_not_verified_is_not_handed_over(provider, bob):
    EmailAddress.objects.create(user=bob, email="bob@example.org", verified=False, primary=True)
    request, answer = provider_says("bob@example.org")
    assert answer.status_code == 409
    assert "has your address but has not verified it" in answer.content.decode()
    assert "_auth_user_id" not in request.session
    assert not SocialAccount.objects.exists()
    bob.refresh_from_db()
    assert bob.has_usable_password()  # allauth would have wiped it and taken the account
