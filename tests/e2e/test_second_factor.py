"""Second factors in Chromium: an authenticator app (codes computed by the test with the function
allauth checks them with), recovery codes shown once and each used once, passkeys through
Chromium's virtual authenticator (the DevTools WebAuthn domain), passkey-only sign-in, and a team
that requires a second factor, on its page and for a member without one. Each new page is left as
screenshots at 390 px and desktop width."""

import re
import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes

from accounts.testing import add_totp, totp_code
from teams.models import Membership
from teams.testing import make_team

pytestmark = pytest.mark.browser

PASSWORD = "correct-horse-battery"
WIDTHS = (390, 1280)


def shoot(page, artifacts_dir, name):
    """The page at a phone's width and a desktop's, full length."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(artifacts_dir / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})


def sign_in(page, base, username, password=PASSWORD):
    page.goto(base + "/accounts/login/")
    page.fill("#id_login", username)
    page.fill("#id_password", password)
    page.locator("form[action='/accounts/login/'] button[type=submit]").click()


def fresh_code(secret, used):
    """The app's code once it differs from `used`: a code works once, so one used in this period
    (to turn the app on) waits for the next."""
    while (code := totp_code(secret)) == used:
        time.sleep(1)
    return code


def confirm_password(page, artifacts_dir=None):
    """allauth asks for the password again before a page that changes how one signs in."""
    page.wait_for_url(re.compile(r".*/accounts/reauthenticate/"))
    if artifacts_dir is not None:
        shoot(page, artifacts_dir, "reauthenticate")
    page.fill("#id_password", PASSWORD)
    page.locator("form[action='/accounts/reauthenticate/'] button[type=submit]").click()


def sign_out(page):
    page.locator("form[action='/accounts/logout/'] button").first.click()
    page.wait_for_url(re.compile(r".*/$"))


def virtual_authenticator(page):
    """A platform authenticator in this page's browser that holds passkeys and verifies its user
    without asking (DevTools' WebAuthn domain)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
        "automaticPresenceSimulation": True,
    }
    return cdp, cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})["authenticatorId"]


def test_authenticator_app_then_recovery_codes(live_server, new_page, make_user, artifacts_dir):
    make_user("alice", password=PASSWORD)
    base = live_server.url
    page = new_page()
    sign_in(page, base, "alice")
    page.wait_for_url(base + "/")
    page.goto(base + "/account")
    page.click("text=Authenticator app, passkeys and recovery codes")
    page.wait_for_url(base + "/accounts/2fa/")
    shoot(page, artifacts_dir, "mfa-index")

    page.click("text=Set up an authenticator app")
    confirm_password(page, artifacts_dir)
    secret = page.inner_text("#authenticator_secret")
    assert page.locator(".qr svg").is_visible()
    shoot(page, artifacts_dir, "mfa-totp-activate")
    page.set_viewport_size({"width": 390, "height": 900})
    shown_whole = "e => e.scrollWidth <= e.clientWidth && e.getBoundingClientRect().right <= window.innerWidth"
    assert page.locator("#authenticator_secret").evaluate(shown_whole), "the secret is cut on a phone"
    page.set_viewport_size({"width": 1280, "height": 900})
    page.fill("#id_code", "123456" if totp_code(secret) != "123456" else "654321")
    page.locator("form[action='/accounts/2fa/totp/activate/'] button[type=submit]").click()
    page.get_by_text("Incorrect code").wait_for()
    activated_with = totp_code(secret)
    page.fill("#id_code", activated_with)
    page.locator("form[action='/accounts/2fa/totp/activate/'] button[type=submit]").click()

    # allauth makes recovery codes with the first factor and shows them once.
    page.wait_for_url(re.compile(r".*/accounts/2fa/recovery-codes/"))
    codes = page.inner_text("#recovery_codes").split()
    assert len(codes) == 10
    shoot(page, artifacts_dir, "mfa-recovery-codes")
    page.goto(base + "/accounts/2fa/recovery-codes/")
    assert codes[0] not in page.content()  # shown once

    sign_out(page)
    sign_in(page, base, "alice")
    page.wait_for_url(re.compile(r".*/accounts/2fa/authenticate/"))
    shoot(page, artifacts_dir, "mfa-authenticate")
    page.fill("#id_code", "000000")
    page.locator("form[action='/accounts/2fa/authenticate/'] button[type=submit]").first.click()
    page.get_by_text("Incorrect code").wait_for()
    page.fill("#id_code", fresh_code(secret, activated_with))
    page.locator("form[action='/accounts/2fa/authenticate/'] button[type=submit]").first.click()
    page.wait_for_url(base + "/")

    # A recovery code signs in once.
    for attempt in range(2):
        sign_out(page)
        sign_in(page, base, "alice")
        page.fill("#id_code", codes[0])
        page.locator("form[action='/accounts/2fa/authenticate/'] button[type=submit]").first.click()
        if attempt == 0:
            page.wait_for_url(base + "/")
        else:
            page.get_by_text("Incorrect code").wait_for()


def test_passkey_added_then_sign_in_with_it_alone(live_server, new_page, make_user, artifacts_dir):
    user = make_user("alice", password=PASSWORD)
    base = live_server.url
    page = new_page()
    cdp, authenticator = virtual_authenticator(page)
    sign_in(page, base, "alice")
    page.wait_for_url(base + "/")
    page.goto(base + "/accounts/2fa/webauthn/add/")
    confirm_password(page)
    page.wait_for_url(re.compile(r".*/accounts/2fa/webauthn/add/"))
    shoot(page, artifacts_dir, "mfa-passkey-add")
    page.fill("#id_name", "This laptop")
    page.check("#id_passwordless")
    page.click("#mfa_webauthn_add")
    page.wait_for_url(lambda url: "/webauthn/add/" not in url)
    assert Authenticator.objects.filter(user=user, type="webauthn").count() == 1
    assert len(cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]) == 1
    page.goto(base + "/accounts/2fa/webauthn/")
    assert "This laptop" in page.content() and "passkey" in page.content()
    shoot(page, artifacts_dir, "mfa-passkey-list")

    sign_out(page)
    page.goto(base + "/accounts/login/")
    shoot(page, artifacts_dir, "sign-in-with-passkey")
    page.click("#passkey_login")
    page.wait_for_url(base + "/")
    assert "alice" in page.inner_text(".who").lower() or "Alice" in page.inner_text(".who")
    # The passkey was the whole sign-in: a page that connects a client opens without asking more.
    page.goto(base + "/device")
    assert page.url == base + "/device"


def test_the_device_page_asks_for_a_new_apps_code_then_the_app_is_managed(
    live_server, new_page, make_user, artifacts_dir
):
    alice = make_user("alice", password=PASSWORD)
    base = live_server.url
    page = new_page()
    sign_in(page, base, "alice")
    page.wait_for_url(base + "/")
    # An app added after this session signed in: connecting a client asks for its code first.
    secret = add_totp(alice)
    first_codes = RecoveryCodes.activate(alice).get_unused_codes()
    page.goto(base + "/device")
    page.wait_for_url(re.compile(r".*/accounts/2fa/reauthenticate/"))
    shoot(page, artifacts_dir, "mfa-reauthenticate-code")
    page.fill("#id_code", totp_code(secret))
    page.locator("form[action='/accounts/2fa/reauthenticate/'] button[type=submit]").click()
    page.wait_for_url(base + "/device")

    page.goto(base + "/accounts/2fa/")
    assert page.inner_text("#totp .badge") == "on"
    assert "10 of 10 codes left" in page.inner_text("#recovery-codes")
    shoot(page, artifacts_dir, "mfa-index-set-up")
    for visit in range(2):  # codes made and never shown: shown on the first visit, not after
        page.goto(base + "/accounts/2fa/recovery-codes/")
        assert (first_codes[0] in page.content()) == (visit == 0)
    shoot(page, artifacts_dir, "mfa-recovery-codes-index")
    page.click("text=Make new codes")
    page.wait_for_url(re.compile(r".*/accounts/2fa/recovery-codes/generate/"))
    shoot(page, artifacts_dir, "mfa-recovery-codes-generate")
    page.locator("form[action='/accounts/2fa/recovery-codes/generate/'] button[type=submit]").click()
    new_codes = page.inner_text("#recovery_codes").split()
    assert len(new_codes) == 10 and not set(new_codes) & set(first_codes)

    page.goto(base + "/accounts/2fa/totp/deactivate/")
    shoot(page, artifacts_dir, "mfa-totp-deactivate")
    page.locator("form[action='/accounts/2fa/totp/deactivate/'] button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/accounts/2fa/$"))
    assert not Authenticator.objects.filter(user=alice, type=Authenticator.Type.TOTP).exists()


def test_a_passkey_confirms_a_client_page_then_is_renamed_and_removed(live_server, new_page, make_user, artifacts_dir):
    user = make_user("alice", password=PASSWORD)
    base = live_server.url
    page = new_page()
    virtual_authenticator(page)
    sign_in(page, base, "alice")
    page.wait_for_url(base + "/")
    page.goto(base + "/accounts/2fa/webauthn/add/")
    confirm_password(page)
    page.fill("#id_name", "This laptop")
    page.click("#mfa_webauthn_add")
    page.wait_for_url(lambda url: "/webauthn/add/" not in url)

    # This session signed in with the password alone: the device page asks for the key first.
    page.goto(base + "/device")
    page.wait_for_url(re.compile(r".*/accounts/2fa/webauthn/reauthenticate/"))
    shoot(page, artifacts_dir, "mfa-reauthenticate-passkey")
    page.click("#mfa_webauthn_reauthenticate")
    page.wait_for_url(base + "/device")

    page.goto(base + "/accounts/2fa/webauthn/")
    page.click("text=Rename")
    shoot(page, artifacts_dir, "mfa-passkey-rename")
    page.fill("#id_name", "Work laptop")
    page.click("button[type=submit] >> text=Save")
    page.wait_for_url(base + "/accounts/2fa/webauthn/")
    assert "Work laptop" in page.inner_text(".key-list")
    page.click(".key-actions >> text=Remove")
    shoot(page, artifacts_dir, "mfa-passkey-remove")
    page.click("text=Remove key")
    page.wait_for_url(lambda url: "/remove/" not in url)
    assert not Authenticator.objects.filter(user=user, type=Authenticator.Type.WEBAUTHN).exists()


def test_wrong_passwords_then_the_lockout_page(live_server, new_page, make_user, artifacts_dir):
    make_user("alice", password=PASSWORD)
    page = new_page()
    for _ in range(10):
        sign_in(page, live_server.url, "alice", password="wrong-password")
    sign_in(page, live_server.url, "alice")
    assert "Too many wrong passwords" in page.inner_text("h1")
    shoot(page, artifacts_dir, "lockout")


def test_a_browser_without_the_passkey_hears_so(live_server, new_page, make_user):
    make_user("alice", password=PASSWORD)
    page = new_page()
    virtual_authenticator(page)  # empty: holds no passkey for this hub
    page.goto(live_server.url + "/accounts/login/")
    page.click("#passkey_login")
    note = page.locator("[data-webauthn-error]")
    note.wait_for(state="visible")
    assert "no passkey" in note.inner_text()


def test_a_team_requires_a_second_factor(live_server, new_page, make_user, artifacts_dir):
    alice, bob = make_user("alice", password=PASSWORD), make_user("bob", password=PASSWORD)
    team = make_team(alice, name="core", members=[bob])
    Membership.objects.filter(team=team, user=bob).update(role=Membership.MEMBER)
    base = live_server.url
    owner = new_page()
    sign_in(owner, base, "alice")
    owner.goto(base + "/teams/core")
    owner.click("#second-factor button")
    message = owner.locator(".messages").inner_text()
    assert "core now requires a second factor. Not yet compliant:" in message
    assert "alice" in message.lower() and "bob" in message.lower()
    assert owner.inner_text("#require-mfa-state") == "required"
    owner.locator("#second-factor").scroll_into_view_if_needed()
    shoot(owner, artifacts_dir, "team-second-factor")

    member = new_page()
    sign_in(member, base, "bob")
    member.goto(base + "/teams/core")
    notice = member.locator("#second-factor-notice")
    assert "core requires a second factor" in notice.inner_text()
    shoot(member, artifacts_dir, "team-second-factor-member")
    member.goto(base + "/")
    assert member.locator("#second-factor-notice").is_visible()
