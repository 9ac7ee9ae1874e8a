"""Changes to people: accounts, personal API tokens and claim links. Each function is one
transaction; `actor` is the person acting."""

import secrets
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from accounts.models import DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH, TOKEN_SCOPES, ApiToken, User, hash_token
from accounts.selectors import CLAIM_SALT, claim_code_user, password_fingerprint
from accounts.signals import user_deleting
from core.errors import BadRequest, Conflict, NotFound

CLAIM_LINK_LIFETIME = timedelta(hours=1)


# People


@transaction.atomic
def user_upsert(*, username: str, password: str | None = None, email: str | None = None) -> tuple[User, bool]:
    """Create the user or update its email/password. Returns (user, created)."""
    user, created = User.objects.get_or_create(
        username=username, defaults={"email": email or f"{username}@example.com"}
    )
    if email and user.email != email:
        user.email = email
    if password is not None:
        user.set_password(password)
    elif created:
        user.set_unusable_password()
    user.save()
    return user, created


def display_name_clean(display) -> str:
    """A display name as stored: a string of printable characters (no control, formatting or
    line-breaking ones), at most DISPLAY_MAX_LENGTH long, trimmed; BadRequest otherwise."""
    if not isinstance(display, str):
        raise BadRequest("display_name must be a string")
    display = display.strip()
    if any(not (ch.isprintable() or ch == " ") for ch in display):
        raise BadRequest("a display name may not contain control characters or line breaks")
    if len(display) > DISPLAY_MAX_LENGTH:
        raise BadRequest(f"a display name is at most {DISPLAY_MAX_LENGTH} characters")
    return display


@transaction.atomic
def user_update_display(*, actor: User, display: str) -> User:
    """Set the name teams see; empty falls back to the username."""
    actor.display = display_name_clean(display)
    actor.save(update_fields=["display"])
    return actor


def user_set_share_mail(*, actor: User, share_mail: bool) -> User:
    """Whether the person is mailed when someone shares a packet with them."""
    actor.share_mail = bool(share_mail)
    actor.save(update_fields=["share_mail"])
    return actor


@transaction.atomic
def user_delete(*, actor: User) -> None:
    """Delete the account, its tokens and its personal packets.

    Apps above this one act first through the `user_deleting` signal (packets hands the actor's
    team packets to their teams). Teams the actor owns protect the account (Team.owner is
    PROTECT): they must be transferred or deleted first, and the whole deletion is undone."""
    user_deleting.send(sender=User, user=actor)
    try:
        actor.delete()
    except ProtectedError as exc:
        names = sorted(str(row) for row in exc.protected_objects)
        raise Conflict(
            "transfer or delete the teams you own before deleting your account: " + ", ".join(names)
        ) from None


# Personal API tokens


def new_token_plaintext() -> str:
    # A fixed prefix: never starts with "-" (the client takes it as an argument) and lets secret
    # scanners recognise it. 32 random bytes = 256 bits.
    return ApiToken.PREFIX + secrets.token_urlsafe(32)


@transaction.atomic
def api_token_create(
    *,
    actor: User,
    name: str,
    scope: str = "read write",
    expires_in_days: int | None = None,
    second_factor: bool = False,
) -> tuple[ApiToken, str]:
    """Mint a token of `actor` with `scope` (see TOKEN_SCOPES) that expires after
    `expires_in_days` (None: never); `second_factor` when the session making it had signed in
    with one. Returns the row and the plaintext, which is never stored."""
    name = (name or "").strip()
    if not name:
        raise BadRequest("a token needs a name, e.g. laptop or ci")
    if len(name) > TOKEN_NAME_MAX_LENGTH:
        raise BadRequest(f"a token name is at most {TOKEN_NAME_MAX_LENGTH} characters")
    if scope not in TOKEN_SCOPES:
        raise BadRequest(f"a token's scope is one of: {', '.join(TOKEN_SCOPES)}")
    if expires_in_days is not None and expires_in_days <= 0:
        raise BadRequest("a token's lifetime is a positive number of days, or none")
    expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
    plaintext = new_token_plaintext()
    token = ApiToken.objects.create(
        user=actor,
        name=name,
        token_hash=hash_token(plaintext),
        hint=plaintext[:8],
        scope=scope,
        expires_at=expires_at,
        second_factor=second_factor,
    )
    return token, plaintext


@transaction.atomic
def api_token_revoke(*, actor: User, token_id: str) -> ApiToken:
    token = ApiToken.objects.filter(user=actor, pk=token_id, revoked_at__isnull=True).first()
    if token is None:
        raise NotFound("token not found")
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token


# The bearer check (oauth.authentication) calls this at most once per LAST_USED_RESOLUTION per
# token: one UPDATE.


def api_token_touch(*, token_id: str, address: str | None = None) -> None:
    """Record that a personal API token was used now, from `address`."""
    ApiToken.objects.filter(pk=token_id).update(last_used_at=timezone.now(), last_used_address=address)


# Claim links: a web sign-in for an account that `ltm join` made.
#
# Such an account has a personal API token but no password and no email. The code is a signed
# value (django.core.signing, keyed by SECRET_KEY), so there is no table to keep: it names the
# user, its expiry and a fingerprint of the user's password hash. Setting the password changes
# that hash, which is what makes the link single use. Only accounts without a usable password can
# be claimed: a token must not be enough to replace an existing password.


def claim_code_create(*, actor: User) -> tuple[str, object]:
    """A one-time code for `actor`. Returns (code, expires_at)."""
    if actor.has_usable_password():
        raise Conflict("this account already has a password; sign in on the hub's web page instead")
    expires_at = timezone.now() + CLAIM_LINK_LIFETIME
    payload = {"u": actor.pk, "f": password_fingerprint(actor), "e": int(expires_at.timestamp())}
    return signing.dumps(payload, salt=CLAIM_SALT), expires_at


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
    user.set_password(password)
    user.save(update_fields=["password"])
    # allauth keeps its own list of addresses (sign-in by email, verification): this one becomes
    # the primary, unverified address, and the user's email.
    EmailAddress.objects.add_email(None, user, email).set_as_primary()
    return user
