"""The dashboard's pages about the person: tokens, the account, and the admin's deactivate action.
(Devices on the tokens page: oauth/tests/test_views.py.)"""

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.services import api_token_create
from accounts.testing import make_admin, password_sign_in
from core.testing import signed_in


def api_list(token):
    """GET /v1/packets with a bearer token, as the ltm client sends it."""
    return Client().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {token}")


# Navigation


def test_signed_in_pages_show_the_navigation(alice):
    body = signed_in(alice).get("/tokens").content.decode()
    for link in ('href="/"', 'href="/teams"', 'href="/tokens"', 'href="/account"'):
        assert link in body
    assert 'href="/admin/"' not in body


def test_staff_see_the_admin_link(alice):
    alice.is_staff = True
    alice.save()
    assert 'href="/admin/"' in signed_in(alice).get("/").content.decode()


@pytest.mark.parametrize("path", ["/tokens", "/account"])
def test_pages_need_a_signed_in_person(client, path):
    response = client.get(path)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# Tokens


def test_tokens_page_without_tokens_or_devices_says_how_to_sign_a_client_in(alice):
    body = signed_in(alice).get("/tokens").content.decode()
    assert "No device is signed in yet." in body
    assert 'href="/client/"' in body
    assert "ltm auth http://testserver" in body
    assert "No tokens yet." in body


def test_create_a_token_shown_once_and_it_works_on_the_api(alice):
    client = signed_in(alice)

    first = client.post("/tokens", {"name": "ci"})
    assert first.status_code == 201
    assert "no-store" in first["Cache-Control"]
    again = client.get("/tokens")

    plaintext = first.context["new_token"]["plaintext"]
    assert plaintext.startswith("ltm_")
    assert plaintext in first.content.decode()
    assert plaintext not in again.content.decode()
    assert ApiToken.objects.get(user=alice).name == "ci"
    assert api_list(plaintext).status_code == 200


def test_a_token_needs_a_name(alice):
    response = signed_in(alice).post("/tokens", {"name": "  "})
    assert response.status_code == 400
    assert not ApiToken.objects.filter(user=alice).exists()


def test_tokens_page_lists_only_ones_own_tokens(alice, bob):
    api_token_create(actor=alice, name="alice-laptop")
    api_token_create(actor=bob, name="bob-laptop")
    body = signed_in(alice).get("/tokens").content.decode()
    assert "alice-laptop" in body and "bob-laptop" not in body


def test_revoke_a_token_after_confirming_and_the_api_refuses_it_at_once(alice):
    token, plaintext = api_token_create(actor=alice, name="laptop")
    client = signed_in(alice)

    asked = client.post(f"/tokens/{token.pk}/revoke")
    assert b"Revoke this token?" in asked.content
    assert api_list(plaintext).status_code == 200

    client.post(f"/tokens/{token.pk}/revoke", {"confirmed": "yes"})

    response = api_list(plaintext)
    assert response.status_code == 401
    assert response.json() == {"error": "invalid token"}


@pytest.mark.parametrize("data", [{}, {"confirmed": "yes"}])
def test_revoking_someone_elses_token_is_404(alice, bob, data):
    token, plaintext = api_token_create(actor=bob, name="laptop")
    response = signed_in(alice).post(f"/tokens/{token.pk}/revoke", data)
    assert response.status_code == 404
    assert api_list(plaintext).status_code == 200


# Devices


# Account


def test_account_page_shows_email_password_and_display_name(alice):
    body = signed_in(alice).get("/account").content.decode()
    assert alice.email in body
    assert 'href="/accounts/email/"' in body
    assert 'href="/accounts/password/change/"' in body
    assert 'name="display"' in body


def test_change_the_display_name(alice):
    response = signed_in(alice).post("/account", {"display": "  Alice Liddell "})
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.display == "Alice Liddell"


def test_display_name_is_at_most_80_characters(alice):
    response = signed_in(alice).post("/account", {"display": "x" * 81})
    assert response.status_code == 400
    alice.refresh_from_db()
    assert alice.display == ""


def test_the_share_mail_setting_is_on_until_unticked(alice):
    browser = signed_in(alice)
    assert 'name="share_mail" id="share-mail" checked' in browser.get("/account").content.decode()

    response = browser.post("/account/share-mail", {}, follow=True)  # an unticked box is not sent
    assert response.redirect_chain == [("/account", 302)]
    assert [str(m) for m in response.context["messages"]] == [
        "No more mails about shares: they still show under Shared with me."
    ]
    alice.refresh_from_db()
    assert alice.share_mail is False
    assert 'name="share_mail" id="share-mail">' in response.content.decode()

    browser.post("/account/share-mail", {"share_mail": "on"})
    alice.refresh_from_db()
    assert alice.share_mail is True


def test_the_share_mail_setting_needs_a_signed_in_post(client, alice):
    assert client.post("/account/share-mail", {"share_mail": "on"}).status_code == 302
    assert signed_in(alice).get("/account/share-mail").status_code == 405


# The site admin


def test_admin_deactivate_action_stops_sign_in_and_tokens(alice, bob, make_token):
    make_admin(alice)
    plaintext = make_token(bob)

    response = signed_in(alice).post(
        "/admin/accounts/user/", {"action": "deactivate", "_selected_action": [bob.pk, alice.pk]}
    )

    assert response.status_code == 302
    bob.refresh_from_db()
    alice.refresh_from_db()
    assert not bob.is_active
    assert alice.is_active, "an admin cannot lock themselves out by selecting everyone"
    assert api_list(plaintext).status_code == 401
    assert not password_sign_in("bob", "correct-horse-battery")[1]


def test_someone_who_is_not_staff_cannot_use_the_admin_or_its_deactivate_action(alice, bob):
    client = signed_in(alice)
    assert client.get("/admin/").status_code == 302
    response = client.post("/admin/accounts/user/", {"action": "deactivate", "_selected_action": [bob.pk]})
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    bob.refresh_from_db()
    assert bob.is_active


def test_admin_lists_teams_packets_and_invites(alice):
    make_admin(alice)
    client = signed_in(alice)
    for path in (
        "/admin/teams/team/",
        "/admin/teams/membership/",
        "/admin/teams/invite/",
        "/admin/packets/packet/",
        "/admin/accounts/user/",
        "/admin/accounts/apitoken/",
    ):
        assert client.get(path).status_code == 200, path


def test_admin_is_branded_and_names_the_two_account_sections_apart(alice):
    make_admin(alice)
    body = signed_in(alice).get("/admin/").content.decode()
    assert "ltm hub administration" in body
    assert "People and tokens" in body  # ours; allauth's app keeps its "Accounts"
    assert "Django administration" not in body
