"""Reads about people: their personal API tokens and claim links."""

import hashlib

from django.core import signing
from django.utils import timezone

from accounts.models import ApiToken, User
from core.errors import Gone


def api_token_list(*, viewer):
    return viewer.api_tokens.all()


def api_token_get(*, viewer, token_id) -> ApiToken | None:
    return viewer.api_tokens.filter(pk=token_id).first()


# Claim links (see accounts.services.claim_code_create)

CLAIM_SALT = "accounts.claim"
CLAIM_GONE = "this sign-in link has expired or was already used; ask the ltm client for a new one"


def password_fingerprint(user) -> str:
    """Changes whenever the password does: what makes a claim link single use."""
    return hashlib.sha256(user.password.encode("utf-8")).hexdigest()[:20]


def claim_code_user(*, code: str, lock: bool = False) -> User:
    """The user a still-valid claim code names (Gone otherwise). With `lock`, the row is locked so
    two submissions of one link cannot both succeed."""
    try:
        payload = signing.loads(code, salt=CLAIM_SALT)
        user_id, fingerprint, expires = payload["u"], payload["f"], int(payload["e"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):  # tampered or not a code at all
        raise Gone(CLAIM_GONE) from None
    if timezone.now().timestamp() >= expires:
        raise Gone(CLAIM_GONE)
    users = User.objects.select_for_update() if lock else User.objects
    user = users.filter(pk=user_id, is_active=True).first()
    if user is None or user.has_usable_password() or password_fingerprint(user) != fingerprint:
        raise Gone(CLAIM_GONE)
    return user
