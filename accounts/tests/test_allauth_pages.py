"""allauth's pages on the hub's layout (templates/account/): sentence-case headings and labels,
allauth's field names and CSRF kept, and the email page offering only the actions that apply."""

import pytest
from allauth.account.models import EmailAddress
from django.contrib.staticfiles import finders
from django.test import Client

from core.testing import signed_in

pytestmark = pytest.mark.django_db


def test_sign_in_labels_say_what_to_type(client):
    body = client.get("/accounts/login/").content.decode()
    assert '<label for="id_login">Username or email</label>' in body
    assert "Remember me" in body
    for title_case in ("Login:", "Remember Me", "Password:"):
        assert title_case not in body
    for name in ('name="login"', 'name="password"', 'name="remember"', 'name="csrfmiddlewaretoken"'):
        assert name in body


def test_signing_in_through_the_page_still_works(alice):
    client = Client(enforce_csrf_checks=True)
    page = client.get("/accounts/login/")
    token = page.cookies["csrftoken"].value
    response = client.post(
        "/accounts/login/", {"login": "alice", "password": "correct-horse-battery", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    assert client.get("/account").status_code == 200


@pytest.mark.parametrize(
    "path, heading, title_case",
    [
        ("/accounts/email/", "<h1>Email addresses</h1>", "Email Addresses"),
        ("/accounts/password/change/", "<h1>Change password</h1>", "Change Password"),
        ("/accounts/logout/", "<h1>Sign out</h1>", "Sign Out"),
    ],
)
def test_account_pages_use_sentence_case_on_the_hub_layout(alice, path, heading, title_case):
    response = signed_in(alice).get(path)
    body = response.content.decode()
    assert response.status_code == 200
    assert heading in body
    assert title_case not in body
    assert 'class="topbar"' in body  # base.html
    assert 'name="csrfmiddlewaretoken"' in body


def test_password_change_labels_are_sentence_case(alice):
    body = signed_in(alice).get("/accounts/password/change/").content.decode()
    assert ">Current password</label>" in body and ">New password (again)</label>" in body
    assert 'name="oldpassword"' in body and 'name="password1"' in body and 'name="password2"' in body


def test_email_page_with_one_address_offers_no_radio_no_make_primary_no_remove(alice):
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=False)
    body = signed_in(alice).get("/accounts/email/").content.decode()
    assert alice.email in body
    assert "primary" in body and "not verified" in body
    assert 'type="radio"' not in body
    assert 'name="action_primary"' not in body
    assert 'name="action_remove"' not in body
    assert 'name="action_send"' in body  # the one action that applies: verify it
    assert 'name="action_add"' in body


def test_email_page_actions_for_a_second_address_work(alice):
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)
    EmailAddress.objects.create(user=alice, email="other@example.org", primary=False, verified=False)
    client = signed_in(alice)
    body = client.get("/accounts/email/").content.decode()
    assert body.count('name="action_remove"') == 1  # not for the primary address
    assert body.count('name="action_primary"') == 1

    response = client.post("/accounts/email/", {"email": "other@example.org", "action_remove": ""})

    assert response.status_code == 302
    assert not EmailAddress.objects.filter(email="other@example.org").exists()


def test_email_page_adds_an_address(alice):
    EmailAddress.objects.create(user=alice, email=alice.email, primary=True, verified=True)
    response = signed_in(alice).post("/accounts/email/", {"email": "new@example.org", "action_add": ""})
    assert response.status_code == 302
    assert EmailAddress.objects.filter(user=alice, email="new@example.org").exists()


# The icon


def test_pages_link_the_svg_icon_which_exists(client, alice):
    assert finders.find("favicon.svg")
    for body in (client.get("/").content.decode(), signed_in(alice).get("/account").content.decode()):
        assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in body


@pytest.mark.parametrize("path", ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"])
def test_sign_in_pages_use_the_hub_layout(client, path):
    page = client.get(path).content.decode()
    assert 'class="topbar"' in page and 'href="/static/css/hub.css"' in page
    assert "· ltm hub</title>" in page


SIGN_IN = "/accounts/login/?next="


# path: (answer signed out, answer signed in); a redirect is given by where it leads.
ALLAUTH_PAGES = {
    "/accounts/login/": (200, "/"),
    "/accounts/signup/": (200, "/"),
    "/accounts/logout/": ("/", 200),
    "/accounts/password/reset/": (200, 200),
    "/accounts/password/reset/done/": (200, 200),
    "/accounts/password/reset/key/bad/": (404, 404),
    "/accounts/password/reset/key/1-bad-key/": (200, 200),
    "/accounts/password/reset/key/done/": (200, 200),
    "/accounts/confirm-email/": (200, 200),
    "/accounts/confirm-email/bad-key/": (200, 200),
    "/accounts/inactive/": (200, 200),
    "/accounts/password/change/": (SIGN_IN + "/accounts/password/change/", 200),
    "/accounts/email/": (SIGN_IN + "/accounts/email/", 200),
    "/accounts/reauthenticate/": (SIGN_IN + "/accounts/reauthenticate/", 200),
}


@pytest.mark.parametrize("path", list(ALLAUTH_PAGES))
@pytest.mark.parametrize("signed_in", [False, True], ids=["signed-out", "signed-in"])
def test_every_allauth_page_answers_on_the_hub_layout(client, alice, path, signed_in):
    if signed_in:
        client.force_login(alice)
    expected = ALLAUTH_PAGES[path][signed_in]
    response = client.get(path)
    if isinstance(expected, str):
        assert (response.status_code, response["Location"]) == (302, expected)
    else:
        assert response.status_code == expected
        page = response.content.decode()
        assert 'class="topbar"' in page and "ltm hub</title>" in page


def test_password_reset_mails_a_link(client, alice, mailoutbox):
    client.post("/accounts/password/reset/", {"email": alice.email})
    assert len(mailoutbox) == 1 and "/accounts/password/reset/key/" in mailoutbox[0].body


def test_password_reset_link_sets_a_new_password_once(client, alice, mailoutbox):
    import re

    response = client.post("/accounts/password/reset/", {"email": alice.email}, follow=True)
    assert "Check your mail" in response.content.decode()
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mailoutbox[0].body).group(1)

    form_page = client.get(link, follow=True)
    assert "Choose a new password" in form_page.content.decode()
    new_password = "a-brand-new-passphrase-42"
    done = client.post(form_page.redirect_chain[-1][0], {"password1": new_password, "password2": new_password})
    assert done.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new_password)

    again = Client().get(link, follow=True).content.decode()
    assert "This reset link is not valid" in again
