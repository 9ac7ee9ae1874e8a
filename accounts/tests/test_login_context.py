"""The sign-in and sign-up pages say why they ask when the person is on the way to connect a
client: the `ltm` client's device flow (/device), or an app's OAuth consent (/oauth/authorize, the
app named by its client_id). One mechanism for both: teams.adapter.AccountAdapter.sign_in_reason."""

from urllib.parse import urlencode

import pytest
from allauth.account.adapter import get_adapter
from django.test import Client
from oauth2_provider.models import get_application_model

pytestmark = pytest.mark.django_db

LOGIN, SIGNUP = "/accounts/login/", "/accounts/signup/"


@pytest.fixture
def claude():
    return get_application_model().objects.create(
        name="Claude Code",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:47999/callback",
    )


def authorize(client_id=None, path="/oauth/authorize") -> str:
    query = {"response_type": "code", "code_challenge_method": "S256"}
    if client_id is not None:
        query["client_id"] = client_id
    return f"{path}?{urlencode(query)}"


def page(path, next_url) -> str:
    response = Client().get(path, {"next": next_url})
    assert response.status_code == 200
    return response.content.decode()


def why(body) -> str:
    """The page's sentence on why it asks ("" if none)."""
    start = body.find('<p class="entrance-why">')
    return body[start : body.index("</p>", start)].removeprefix('<p class="entrance-why">') if start >= 0 else ""


def test_signing_in_on_the_way_to_an_app_names_it(claude):
    assert why(page(LOGIN, authorize(claude.client_id))).startswith(
        "Sign in to connect <strong>Claude Code</strong> to this hub."
    )
    assert "connect <strong>Claude Code</strong> to this hub" in why(page(SIGNUP, authorize(claude.client_id)))


def test_the_sign_in_page_says_why_when_the_consent_page_sends_a_signed_out_person(claude):
    response = Client().get(authorize(claude.client_id), follow=True)
    assert response.redirect_chain[0][0].startswith(LOGIN + "?next=")
    assert "Sign in to connect <strong>Claude Code</strong> to this hub." in why(response.content.decode())


@pytest.mark.parametrize("client_id", ["no-such-client", "", None])
def test_an_unknown_app_gets_a_sentence_that_names_none(client_id):
    assert why(page(LOGIN, authorize(client_id))).startswith("Sign in to connect an app to this hub.")
    assert "the app that sent you here" in why(page(SIGNUP, authorize(client_id)))


def test_an_app_that_gave_no_name_is_an_app(claude):
    get_application_model().objects.filter(pk=claude.pk).update(name="")
    assert why(page(LOGIN, authorize(claude.client_id))).startswith("Sign in to connect an app to this hub.")


def test_the_apps_name_is_text(claude):
    get_application_model().objects.filter(pk=claude.pk).update(name="<b>Evil</b>")
    body = page(LOGIN, authorize(claude.client_id))
    assert "&lt;b&gt;Evil&lt;/b&gt;" in why(body) and "<b>Evil</b>" not in body


def test_the_device_flow_keeps_its_sentences():
    assert why(page(LOGIN, "/device")).startswith("Sign in to connect the <code>ltm</code> client")
    assert why(page(LOGIN, "/device?user_code=BCDF-GHJK")).startswith("Sign in to connect the <code>ltm</code>")
    assert "approve the <code>ltm</code> client" in why(page(SIGNUP, "/device"))


@pytest.mark.parametrize(
    "next_url",
    [
        "/",
        "/teams",
        "/devices/1/revoke",  # starts like /device, is not the device flow
        "/oauth/authorize_device",  # the device flow's API, not a page
        "https://elsewhere.example/oauth/authorize?client_id=x",  # another site's consent page
        "//elsewhere.example/device",
    ],
)
def test_anywhere_else_gives_no_reason(claude, next_url):
    assert why(page(LOGIN, next_url)) == ""
    assert why(page(SIGNUP, next_url)) == ""


def test_a_next_that_is_not_a_url_gives_no_reason():
    assert get_adapter().sign_in_reason("//[") is None


@pytest.mark.parametrize("next_url", ["//[", "http://[::1", "https://[bad/x"])
def test_a_next_that_is_not_a_url_is_ignored_not_a_500(client, next_url):
    assert client.get("/accounts/login/", {"next": next_url}).status_code == 200
