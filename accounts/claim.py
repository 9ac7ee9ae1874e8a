"""Claiming a web sign-in for an account made by an anonymous `ltm join`.

Such an account has a personal API token but no password and no email. With that token,
`POST /v1/account/claim-link` returns a one-time link to `/claim/<code>`, a page where the person
sets an email and a password (and is signed in).

The code is a signed value (django.core.signing, keyed by SECRET_KEY), so there is no table to
keep: it names the user, its expiry (CLAIM_LINK_LIFETIME) and a fingerprint of the user's current
password hash. Setting the password changes that hash, which is what makes the link single use.
Only accounts without a usable password can be claimed: a token must not be enough to replace an
existing password.
"""

import hashlib
from datetime import timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from core.api import rfc3339
from core.errors import BadRequest, Conflict, Gone
from core.links import external_url

CLAIM_LINK_LIFETIME = timedelta(hours=1)
CLAIM_SALT = "accounts.claim"
CLAIM_GONE = "this sign-in link has expired or was already used; ask the ltm client for a new one"


def _fingerprint(user) -> str:
    return hashlib.sha256(user.password.encode("utf-8")).hexdigest()[:20]


def _require_claimable(user) -> None:
    if user.has_usable_password():
        raise Conflict("this account already has a password; sign in on the hub's web page instead")


# Services


def claim_code_create(*, user) -> tuple[str, object]:
    """A one-time code for `user`. Returns (code, expires_at)."""
    _require_claimable(user)
    expires_at = timezone.now() + CLAIM_LINK_LIFETIME
    payload = {"u": user.pk, "f": _fingerprint(user), "e": int(expires_at.timestamp())}
    return signing.dumps(payload, salt=CLAIM_SALT), expires_at


def claim_code_user(*, code: str, lock: bool = False) -> User:
    """The user a still-valid code names (410 otherwise). With `lock`, the row is locked so two
    submissions of one link cannot both succeed."""
    try:
        payload = signing.loads(code, salt=CLAIM_SALT)
        user_id, fingerprint, expires = payload["u"], payload["f"], int(payload["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):  # tampered or not a code at all
        raise Gone(CLAIM_GONE) from None
    if timezone.now().timestamp() >= expires:
        raise Gone(CLAIM_GONE)
    users = User.objects.select_for_update() if lock else User.objects
    user = users.filter(pk=user_id, is_active=True).first()
    if user is None or user.has_usable_password() or _fingerprint(user) != fingerprint:
        raise Gone(CLAIM_GONE)
    return user


@transaction.atomic
def account_claim(*, code: str, email: str, password: str) -> User:
    """Give the account behind `code` an email and a password; the code is spent."""
    user = claim_code_user(code=code, lock=True)
    email = (email or "").strip()
    if not email:
        raise BadRequest("an email address is needed to sign in on the web")
    if User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists():
        raise Conflict("this email address belongs to another account; sign in with it instead")
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from None
    user.email = email
    user.set_password(password)
    user.save(update_fields=["email", "password"])
    _record_email_for_allauth(user, email)
    return user


def _record_email_for_allauth(user, email: str) -> None:
    """allauth keeps its own list of addresses (login by email, verification); add this one as
    the primary, unverified address."""
    from allauth.account.models import EmailAddress

    EmailAddress.objects.filter(user=user).update(primary=False)
    EmailAddress.objects.update_or_create(
        user=user, email=email.lower(), defaults={"primary": True, "verified": False}
    )


# Views


class ClaimLinkApi(APIView):
    """POST /v1/account/claim-link (bearer) → 201 {"url", "expires_at"}."""

    def post(self, request):
        code, expires_at = claim_code_create(user=request.user)
        url = external_url(request, f"/claim/{code}")
        return Response({"url": url, "expires_at": rfc3339(expires_at)}, status=201)


NEW_PASSWORD = forms.PasswordInput(attrs={"autocomplete": "new-password"})


class ClaimForm(forms.Form):
    email = forms.EmailField(label="Email", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    password1 = forms.CharField(label="Password", strip=False, widget=NEW_PASSWORD)
    password2 = forms.CharField(label="Password (again)", strip=False, widget=NEW_PASSWORD)

    def clean(self):
        data = super().clean()
        if data.get("password1") and data.get("password1") != data.get("password2"):
            self.add_error("password2", "The two passwords differ.")
        return data


@never_cache
@require_http_methods(["GET", "POST"])
def claim_page(request, code):
    try:
        user = claim_code_user(code=code)
    except Gone as exc:
        return render(request, "accounts/claim_gone.html", {"message": exc.message}, status=410)

    form = ClaimForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = account_claim(
                code=code, email=form.cleaned_data["email"], password=form.cleaned_data["password1"]
            )
        except Gone as exc:
            return render(request, "accounts/claim_gone.html", {"message": exc.message}, status=410)
        except (BadRequest, Conflict) as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"You can now sign in on the web as {user.username} or {user.email}.")
            return redirect("/")
    return render(request, "accounts/claim.html", {"form": form, "claimed_user": user})
