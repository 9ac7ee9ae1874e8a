"""Both halves of single sign-on in one journey: this hub (the live server) is the OpenID Connect
provider, a second hub process is the relying party configured with LTM_OIDC_* pointing at it,
and a person signs in to the second through the first in Chromium. A wrong issuer, a bad
signature, a replayed state and an unverified e-mail address are each refused with a page that
says which. Screenshots of each page at 390 px and desktop width."""

import re

import pytest
from allauth.account.models import EmailAddress

from accounts.oidc.testing import FalsifyingProxy, RelyingPartyHub, free_port
from oauth.testing import relying_party

pytestmark = pytest.mark.browser

PASSWORD = "correct-horse-battery"
NAME = "ltm hub"


def shoot(page, artifacts_dir, name):
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.fixture
def proxy():
    running = FalsifyingProxy()
    yield running
    running.stop()


@pytest.fixture
def hubs(live_server, tmp_path, proxy, make_user):
    """(provider URL, relying party): the people and the registered client on the provider, a
    team `acme` on the relying party that example.org addresses join."""
    pat, una = make_user("pat", password=PASSWORD, email="pat@example.org"), make_user("una", password=PASSWORD)
    EmailAddress.objects.create(user=pat, email=pat.email, primary=True, verified=True)
    EmailAddress.objects.create(user=una, email="una@example.org", primary=True, verified=False)
    port = free_port()  # first: the client registered on the provider names its callback
    callback = f"http://127.0.0.1:{port}/accounts/oidc/sso/login/callback/"
    _, secret = relying_party(redirect_uri=callback, name="Team wiki")
    rp = RelyingPartyHub(
        tmp_path,
        issuer=live_server.url,
        client_id="wiki",
        secret=secret,
        proxy=proxy.url,
        name=NAME,
        port=port,
        LTM_OIDC_TEAM_DOMAINS="example.org=acme",
    )
    rp.shell(
        "from accounts.services import user_upsert; from teams.services import team_create; "
        "team_create(actor=user_upsert(username='olga', password='x-correct-horse')[0], name='acme')"
    )
    yield live_server.url, rp
    rp.stop()
    print(rp.log.read_text()[-3000:])


def start_sign_in(page, rp):
    page.goto(rp.url + "/accounts/login/")
    page.click("#sso-sso")


def provider_sign_in_and_allow(page, provider, username, artifacts_dir=None):
    page.wait_for_url(re.compile(re.escape(provider) + r"/accounts/login/"))
    page.fill("#id_login", username)
    page.fill("#id_password", PASSWORD)
    page.locator("form[action='/accounts/login/'] button[type=submit]").click()
    page.wait_for_url(re.compile(re.escape(provider) + r"/oauth/authorize"))
    assert "Sign in to Team wiki?" in page.content()
    if artifacts_dir is not None:
        shoot(page, artifacts_dir, "oidc-consent")
    page.click("button[name=allow]")


def refusal(page) -> str:
    page.locator("#sso-refused").wait_for()
    return page.inner_text("#sso-refused")


def test_sign_in_through_the_other_hub_and_what_is_refused(hubs, proxy, new_page, artifacts_dir):
    provider, rp = hubs

    # A person with a verified address signs in, gets an account and joins acme by its domain.
    page = new_page()
    callbacks = []
    page.on("request", lambda request: callbacks.append(request.url) if "/login/callback/" in request.url else None)
    page.goto(rp.url + "/accounts/login/")
    assert page.inner_text("#sso-sso") == f"Sign in with {NAME}"
    shoot(page, artifacts_dir, "oidc-sign-in-button")
    page.click("#sso-sso")
    provider_sign_in_and_allow(page, provider, "pat", artifacts_dir)
    page.wait_for_url(rp.url + "/")
    assert page.inner_text(".who") == "pat"
    page.goto(rp.url + "/teams/acme")
    assert "joined the team through single sign-on (example.org)" in page.content()

    # The provider's answer, replayed: its state was spent by the first use.
    page.goto(callbacks[-1])
    assert "already used" in refusal(page)
    shoot(page, artifacts_dir, "oidc-refused-replayed-state")

    # An address the provider has not verified signs nobody in.
    page = new_page()
    start_sign_in(page, rp)
    provider_sign_in_and_allow(page, provider, "una")
    assert "not verified" in refusal(page)
    shoot(page, artifacts_dir, "oidc-refused-unverified")
    assert "una" not in rp.shell(
        "from accounts.models import User; print(sorted(User.objects.values_list('username', flat=True)))"
    )

    # A discovery document that names another issuer.
    proxy.mode = "issuer"
    page = new_page()
    start_sign_in(page, rp)
    assert "not the one this hub trusts" in refusal(page)
    shoot(page, artifacts_dir, "oidc-refused-issuer")

    # An ID token whose signature the published keys do not match.
    proxy.mode = "keys"
    page = new_page()
    start_sign_in(page, rp)
    provider_sign_in_and_allow(page, provider, "pat")
    assert "not signed by it" in refusal(page)
    shoot(page, artifacts_dir, "oidc-refused-signature")


def test_the_sign_up_page_offers_the_provider_and_sso_only_hides_the_password(
    live_server, new_page, settings, artifacts_dir
):
    settings.LTM_OIDC_NAME = "Acme ID"
    provider_app = {"provider_id": "sso", "name": "Acme ID", "client_id": "hub", "secret": "s"}
    settings.SOCIALACCOUNT_PROVIDERS = {
        "openid_connect": {
            **settings.SOCIALACCOUNT_PROVIDERS["openid_connect"],
            "APPS": [{**provider_app, "settings": {"server_url": "https://id.example"}}],
        }
    }
    page = new_page()
    page.goto(live_server.url + "/accounts/signup/")
    assert page.inner_text("#sso-sso") == "Sign up with Acme ID"
    shoot(page, artifacts_dir, "oidc-sign-up-button")

    settings.LTM_OIDC_ONLY = True
    page.goto(live_server.url + "/accounts/login/")
    assert page.inner_text("#sso-sso") == "Sign in with Acme ID"
    assert not page.locator("#id_password").is_visible()  # folded under the administrators' way in
    page.click("text=Administrator sign-in with a password")
    assert page.locator("#id_password").is_visible()
    shoot(page, artifacts_dir, "oidc-only-sign-in")
