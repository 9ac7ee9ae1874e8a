"""Content-Security-Policy on every page, no inline script or style for it to block, and no-store
on the pages that show a secret."""

import re

import pytest
from django.test import Client

from accounts.services import claim_code_create
from accounts.testing import make_admin, passwordless_user
from core.testing import signed_in
from oauth.testing import authorize_device
from teams.testing import make_invite, make_team

pytestmark = pytest.mark.django_db

SITE_POLICY = {
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
}
# An inline script, style or handler; a JSON data block (type="application/json") runs nothing.
INLINE = re.compile(
    r"<script(?![^>]*\b(?:src=|type=\"application/json\"))[^>]*>|<style\b|\sstyle=|\son[a-z]+=", re.IGNORECASE
)


def policy(response) -> set[str]:
    return {directive.strip() for directive in response["Content-Security-Policy"].split(";")}


def test_every_kind_of_page_has_the_strict_policy_and_nothing_inline_for_it_to_block(alice, client):
    team = make_team(alice, "core")
    _, code = make_invite(team)
    user_code = authorize_device(Client()).json()["user_code"]
    me = signed_in(alice)
    admin = signed_in(make_admin(alice))
    pages = {
        "/": Client(),
        "/accounts/login/": Client(),
        "/accounts/signup/": Client(),
        "/accounts/password/reset/": Client(),
        f"/v1/invites/{code}": Client(),
        "/nowhere": Client(),
        "/packets/nothing-here": me,
        "/teams": me,
        "/teams/core": me,
        "/tokens": me,
        "/account": me,
        "/device": me,
        f"/device?user_code={user_code}": me,
        "/accounts/2fa/": me,  # the admin signs in on allauth's page (accounts/admin.py)
        "/admin/": admin,
        "/admin/accounts/user/": admin,
        f"/admin/accounts/user/{alice.pk}/change/": admin,
    }
    for path, browser in pages.items():
        response = browser.get(path)
        assert response.status_code in (200, 404), path
        assert policy(response) == SITE_POLICY, path
        assert not INLINE.findall(response.content.decode()), path


def test_the_wire_api_carries_the_policy_too(anon_api):
    assert policy(anon_api.get("/v1/healthz")) == SITE_POLICY


def test_the_device_confirmation_page_is_never_stored(alice):
    user_code = authorize_device(Client()).json()["user_code"]
    response = signed_in(alice).get(f"/device?user_code={user_code}")
    assert response.status_code == 200 and "Approve" in response.content.decode()
    assert "no-store" in response["Cache-Control"]


def test_the_claim_page_and_the_invite_page_are_never_stored(alice):
    user, _ = passwordless_user()
    claim_code, _ = claim_code_create(actor=user)
    _, invite_code = make_invite(make_team(alice, "core"))
    for path in (f"/claim/{claim_code}", f"/v1/invites/{invite_code}"):
        response = Client().get(path)
        assert response.status_code == 200, path
        assert "no-store" in response["Cache-Control"], path
