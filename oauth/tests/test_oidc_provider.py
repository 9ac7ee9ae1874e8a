"""The hub as an OpenID Connect provider (django-oauth-toolkit): discovery, keys, an ID token
signed RS256 that names the person, userinfo, and a sign-in that gets nothing more than who the
person is. The journey with a second hub as relying party is tests/e2e/test_sso.py."""

import json
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest
from allauth.account.models import EmailAddress
from django.test import Client

from core.testing import ApiClient, signed_in
from oauth.testing import RELYING_PARTY_CALLBACK, pkce, relying_party, sign_in_query

pytestmark = pytest.mark.django_db
ISSUER = "http://testserver"


def consent(browser, query):
    page = browser.get(query)
    assert page.status_code == 200, page.content
    form = {field: page.context["form"][field].value() or "" for field in page.context["form"].fields}
    return page, browser.post("/oauth/authorize", {**form, "allow": "on"})


def tokens(secret, code, verifier):
    fields = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": RELYING_PARTY_CALLBACK,
        "code_verifier": verifier,
        "client_id": "wiki",
        "client_secret": secret,
    }
    return Client().post("/oauth/token", urlencode(fields), content_type="application/x-www-form-urlencoded")


def signed_in_through_the_hub(person):
    _, secret = relying_party()
    verifier, challenge = pkce()
    page, answer = consent(signed_in(person), sign_in_query("wiki", challenge))
    assert answer.status_code == 302, answer.content
    code = parse_qs(urlsplit(answer["Location"]).query)["code"][0]
    issued = tokens(secret, code, verifier)
    assert issued.status_code == 200, issued.content
    return page, issued.json()


def test_discovery_names_the_endpoints_the_keys_and_the_scopes():
    found = Client().get("/.well-known/openid-configuration").json()
    assert found["issuer"] == ISSUER
    assert found["jwks_uri"] == f"{ISSUER}/oauth/jwks"
    assert found["userinfo_endpoint"] == f"{ISSUER}/oauth/userinfo"
    assert found["authorization_endpoint"] == f"{ISSUER}/oauth/authorize"
    assert "RS256" in found["id_token_signing_alg_values_supported"]
    assert found["response_types_supported"] == ["code"]
    assert {"openid", "profile", "email"} <= set(found["scopes_supported"])
    keys = Client().get("/oauth/jwks").json()["keys"]
    assert [key["kty"] for key in keys] == ["RSA"]


def test_the_id_token_is_signed_rs256_and_names_the_person(alice):
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)
    page, issued = signed_in_through_the_hub(alice)
    assert "Sign in to Wiki?" in page.content.decode()
    key = jwt.PyJWKSet.from_dict(Client().get("/oauth/jwks").json()).keys[0]
    claims = jwt.decode(issued["id_token"], key.key, algorithms=["RS256"], audience="wiki", issuer=ISSUER)
    assert claims["sub"] == alice.pk
    assert claims["nonce"] == "n0nce"
    assert claims["email"] == alice.email and claims["email_verified"] is True
    assert claims["preferred_username"] == "alice"


def test_userinfo_answers_the_sign_in_token_and_the_api_refuses_it(alice):
    _, issued = signed_in_through_the_hub(alice)
    info = ApiClient(issued["access_token"]).get("/oauth/userinfo")
    assert info.status_code == 200, info.content
    assert info.json()["sub"] == alice.pk
    assert info.json()["email_verified"] is False  # no verified address on the hub
    refused = ApiClient(issued["access_token"]).get("/v1/me")
    assert refused.status_code == 403
    assert "scope does not allow" in refused.json()["error"]


def test_a_sign_in_may_not_ask_for_packets_too(alice):
    relying_party()
    _, challenge = pkce()
    answer = signed_in(alice).get(sign_in_query("wiki", challenge, scope="openid email read"))
    assert answer.status_code == 302
    refused = parse_qs(urlsplit(answer["Location"]).query)
    assert refused["error"] == ["invalid_scope"]
    assert "openid" in refused["error_description"][0]


def test_the_signing_key_is_the_one_the_jwks_publishes(alice, settings):
    _, issued = signed_in_through_the_hub(alice)
    header = jwt.get_unverified_header(issued["id_token"])
    published = json.loads(Client().get("/oauth/jwks").content)["keys"]
    assert header["alg"] == "RS256" and header["kid"] in {key["kid"] for key in published}
