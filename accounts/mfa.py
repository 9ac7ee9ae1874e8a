"""Second factors, as allauth.mfa keeps them: an authenticator app (TOTP), recovery codes and
WebAuthn keys (passkeys). The hub adds three things around the library, here and only here:

- secrets at rest: a TOTP secret and the seed of the recovery codes are encrypted (Fernet, keyed
  by SECRET_KEY, SECRET_KEY_FALLBACKS still read) through the adapter's encrypt/decrypt hook, so a
  copy of the database alone yields no code;
- lockout: a wrong code counts towards django-axes' lockout as a wrong password does (the same
  count for the same name and address), and a locked-out name may not try codes either;
- what a session proved: `second_factor_passed` reads allauth's record of how this session signed
  in, and `second_factor_asked` sends a person who has a second factor to prove it before a page
  that connects a client (the device flow, the OAuth consent page).
"""

import base64
import functools
from urllib.parse import urlencode

from allauth.account.authentication import get_authentication_records
from allauth.core import context
from allauth.mfa import signals as mfa_signals
from allauth.mfa.adapter import DefaultMFAAdapter
from allauth.mfa.base.forms import AuthenticateForm, ReauthenticateForm
from allauth.mfa.models import Authenticator
from axes.handlers.proxy import AxesProxyHandler
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.crypto import salted_hmac

# What counts as a second factor: recovery codes alone are a way back in, not a factor.
SECOND_FACTOR_TYPES = (Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN)
LOCKED_OUT = "Too many wrong codes or passwords for this account from your address: try again in 15 minutes."


def _fernet() -> MultiFernet:
    """Encrypts with a key derived from SECRET_KEY; decrypts with it or a fallback's."""
    keys = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    derived = [salted_hmac("ltm.mfa.secrets", "fernet", secret=key, algorithm="sha256").digest() for key in keys]
    return MultiFernet([Fernet(base64.urlsafe_b64encode(key)) for key in derived])


class HubMFAAdapter(DefaultMFAAdapter):
    """MFA_ADAPTER: the library's adapter, with its secrets encrypted at rest."""

    def encrypt(self, text: str) -> str:
        return _fernet().encrypt(text.encode()).decode()

    def decrypt(self, encrypted_text: str) -> str:
        try:
            return _fernet().decrypt(encrypted_text.encode()).decode()
        except InvalidToken:
            # A secret stored before encryption, or under a SECRET_KEY no longer listed: no code
            # can match it, so the person signs in with another factor and sets it up again.
            return ""


def has_second_factor(user) -> bool:
    """Whether the account has an authenticator app or a WebAuthn key."""
    if user is None or not user.is_authenticated:
        return False
    return Authenticator.objects.filter(user_id=user.pk, type__in=SECOND_FACTOR_TYPES).exists()


def users_with_second_factor():
    """The ids of the accounts that have a second factor, as a subquery."""
    return Authenticator.objects.filter(type__in=SECOND_FACTOR_TYPES).values("user_id")


def second_factor_shown(user) -> bool:
    """Whether `user`, as the request at hand knows them, has shown a second factor: through a
    bearer token, whether it was issued after a sign-in with one (oauth.authentication notes it on
    the user it returns); on a dashboard session, whether the account has one. Asked once per
    request."""
    if user.shown_second_factor is None:
        user.shown_second_factor = has_second_factor(user)
    return user.shown_second_factor


def second_factor_passed(request) -> bool:
    """Whether this session signed in (or confirmed itself since) with a second factor: a code, a
    security key or a passkey, as allauth recorded it."""
    records = get_authentication_records(request, request.user)
    return any(record.get("method") == "mfa" for record in records)


def _prove_url(request, back: str) -> str:
    """allauth's page that confirms the session with the person's second factor, then `back`."""
    types = set(Authenticator.objects.filter(user_id=request.user.pk).values_list("type", flat=True))
    name = "mfa_reauthenticate" if Authenticator.Type.TOTP in types else "mfa_reauthenticate_webauthn"
    return f"{reverse(name)}?{urlencode({'next': back})}"


def second_factor_asked(view=None, *, back=None):
    """A page that connects a client to the account: a person with a second factor whose session
    has not shown it is asked for it first, then comes back to the same URL (or to `back(request)`,
    for a form's POST whose URL is no page)."""
    if view is None:
        return functools.partial(second_factor_asked, back=back)

    @functools.wraps(view)
    def asked(request, *args, **kwargs):
        user = request.user
        if user.is_authenticated and not second_factor_passed(request) and has_second_factor(user):
            return redirect(_prove_url(request, back(request) if back else request.get_full_path()))
        return view(request, *args, **kwargs)

    return asked


# Lockout: codes count as passwords (django-axes)


def _credentials(user) -> dict:
    return {"username": user.username}


class _LockedOutFirst:
    """A code form that refuses at once while django-axes holds the name locked out."""

    def clean_code(self):
        if AxesProxyHandler.is_locked(context.request, _credentials(self.user)):
            raise ValidationError(LOCKED_OUT)
        return super().clean_code()


class CodeForm(_LockedOutFirst, AuthenticateForm):
    """MFA_FORMS["authenticate"]: the code asked at sign-in."""


class ReauthenticateCodeForm(_LockedOutFirst, ReauthenticateForm):
    """MFA_FORMS["reauthenticate"]: the code asked to confirm a signed-in session."""


def count_failed_code(sender, request, user, **kwargs) -> None:
    """allauth.mfa's authentication_failed: the wrong code counts as a wrong password would."""
    user_login_failed.send(sender=Authenticator, credentials=_credentials(user), request=request)


def connect() -> None:
    mfa_signals.authentication_failed.connect(count_failed_code, dispatch_uid="ltm-mfa-lockout")
