"""Changes to people: accounts, personal API tokens, signed-in devices, device grants and claim
links. Each function is one transaction; `actor` is the person acting."""

import secrets
from datetime import timedelta

from allauth.account.models import EmailAddress
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, ProtectedError
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_refresh_token_model,
    revoke_access_token,
)

from accounts.device_flow import ALREADY_REDEEMED, POLL_GRACE, REDEEMED, SLOW_DOWN_STEP
from accounts.models import DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH, ApiToken, User, hash_token
from accounts.selectors import CLAIM_SALT, claim_code_user, device_grant_find, device_grant_problem, password_fingerprint
from accounts.signals import user_deleting
from core.errors import BadRequest, Conflict, NotFound, Unauthorized

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


@transaction.atomic
def user_update_display(*, actor: User, display: str) -> User:
    """Set the name teams see; empty falls back to the username."""
    display = (display or "").strip()
    if len(display) > DISPLAY_MAX_LENGTH:
        raise BadRequest(f"a display name is at most {DISPLAY_MAX_LENGTH} characters")
    actor.display = display
    actor.save(update_fields=["display"])
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
def api_token_create(*, actor: User, name: str) -> tuple[ApiToken, str]:
    """Mint a token of `actor`. Returns the row and the plaintext, which is never stored."""
    name = (name or "").strip()
    if not name:
        raise BadRequest("a token needs a name, e.g. laptop or ci")
    if len(name) > TOKEN_NAME_MAX_LENGTH:
        raise BadRequest(f"a token name is at most {TOKEN_NAME_MAX_LENGTH} characters")
    plaintext = new_token_plaintext()
    token = ApiToken.objects.create(
        user=actor, name=name, token_hash=hash_token(plaintext), hint=plaintext[:8]
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


def api_token_touch(*, token_id: str) -> None:
    """Record that a personal API token was used now (the bearer check calls this at most once
    per LAST_USED_RESOLUTION, see accounts.selectors.bearer_get)."""
    ApiToken.objects.filter(pk=token_id).update(last_used_at=timezone.now())


def oauth_token_touch(*, token_id) -> None:
    """Record that an OAuth access token was used now, in the toolkit's `updated` column (the
    dashboard's "last used")."""
    get_access_token_model().objects.filter(pk=token_id).update(updated=timezone.now())


# Devices signed in through the device flow


@transaction.atomic
def device_revoke(*, actor: User, device_id) -> None:
    """Sign a device out: its token stops working at once. Someone else's id answers 404."""
    token = None
    if str(device_id).isdecimal():
        tokens = get_access_token_model().objects.select_for_update()
        token = tokens.filter(user=actor, pk=int(device_id)).first()
    if token is None:
        raise NotFound("device not found")
    revoke_access_token(token)


@transaction.atomic
def connected_app_revoke(*, actor: User, app_id) -> None:
    """Disconnect a client that signed itself in: its access and refresh tokens and any code not
    yet exchanged go, so its very next request fails and it cannot refresh. Someone else's id, or
    an app not connected, answers 404."""
    application = get_application_model().objects.filter(
        pk=app_id if str(app_id).isdecimal() else None,
        authorization_grant_type=get_application_model().GRANT_AUTHORIZATION_CODE,
    ).first()
    mine = {"user": actor, "application": application}
    access = get_access_token_model().objects.filter(**mine)
    refresh = get_refresh_token_model().objects.filter(**mine, revoked__isnull=True)
    if application is None or not (access.exists() or refresh.exists()):
        raise NotFound("connected app not found")
    refresh.update(revoked=timezone.now())
    access.delete()
    get_grant_model().objects.filter(**mine).delete()


# Device grants: every state change is one conditional UPDATE, so a code is approved, denied or
# redeemed exactly once, even under concurrent requests.


def device_grant_decide(*, actor: User, address: str, raw_code: str, approve: bool):
    """Approve or deny a pending grant for `actor`. Exactly one decision wins."""
    grant = device_grant_find(viewer=actor, address=address, raw_code=raw_code)
    model = get_device_grant_model()
    decided = model.objects.filter(
        pk=grant.pk, status=model.AUTHORIZATION_PENDING, expires__gt=timezone.now()
    ).update(status=model.AUTHORIZED if approve else model.DENIED, user=actor)
    if not decided:
        problem = device_grant_problem(model.objects.filter(pk=grant.pk).first())
        raise BadRequest(problem or "This code has already been used.")
    grant.refresh_from_db()
    return grant


def device_grant_poll(*, device_code: str, client_id: str):
    """The grant to redeem, or the HubError the polling client must hear (its `code` is the RFC
    8628 section 3.5 / RFC 6749 section 5.2 error).

    Order: an unknown client (invalid_client) before anything about the code; a code of another
    client is as unknown as a made-up one (invalid_grant); then the grant's state. Polling faster
    than the grant's interval while pending answers slow_down, and the interval grows by 5 s as
    the client's does."""
    if not client_id:
        raise BadRequest("client_id is missing", code="invalid_request")
    if not get_application_model().objects.filter(client_id=client_id).exists():
        raise Unauthorized("unknown client_id", code="invalid_client")
    if not device_code:
        raise BadRequest("device_code is missing", code="invalid_request")

    model = get_device_grant_model()
    grant = model.objects.filter(device_code=device_code, client_id=client_id).first()
    if grant is None:
        raise BadRequest("unknown device_code", code="invalid_grant")
    if grant.status == REDEEMED:
        raise BadRequest(ALREADY_REDEEMED, code="invalid_grant")
    if grant.status == model.DENIED:
        raise BadRequest("the sign-in was denied", code="access_denied")
    now = timezone.now()
    if grant.status == model.EXPIRED or grant.expires <= now:
        raise BadRequest("the device code expired; start again", code="expired_token")
    if grant.status == model.AUTHORIZATION_PENDING:
        on_time = model.objects.filter(
            pk=grant.pk, last_checked__lte=now - timedelta(seconds=grant.interval) + POLL_GRACE
        ).update(last_checked=now)
        if not on_time:
            model.objects.filter(pk=grant.pk).update(interval=F("interval") + SLOW_DOWN_STEP)
            raise BadRequest(f"poll at most every {grant.interval + SLOW_DOWN_STEP} seconds", code="slow_down")
        raise BadRequest("waiting for the person to approve", code="authorization_pending")
    return grant


def device_grant_redeem(*, grant) -> bool:
    """Claim an authorized grant for its one token; False when another request claimed it."""
    model = get_device_grant_model()
    return bool(model.objects.filter(pk=grant.pk, status=model.AUTHORIZED).update(status=REDEEMED))


def device_grants_purge(*, now=None) -> int:
    """Delete grants past their expiry (whatever their state). Returns how many."""
    now = now or timezone.now()
    deleted, _ = get_device_grant_model().objects.filter(expires__lt=now).delete()
    return deleted


# Clients that registered themselves (Dynamic Client Registration, metadata documents) and were
# never used, or no longer are: registration is open, so they must not pile up.
UNUSED_CLIENT_AGE = timedelta(days=1)


def unused_clients_purge(*, now=None) -> int:
    """Delete self-registered clients older than a day that hold no grant, no person's token and
    no live refresh token (a registration token, which has no person, does not count). Returns
    how many."""
    now = now or timezone.now()
    application = get_application_model()
    in_use = (
        {*get_access_token_model().objects.filter(user__isnull=False).values_list("application_id", flat=True)}
        | {*get_refresh_token_model().objects.filter(revoked__isnull=True).values_list("application_id", flat=True)}
        | {*get_grant_model().objects.values_list("application_id", flat=True)}
    )
    unused = application.objects.filter(
        registration_source__in=[application.RegistrationSource.DCR, application.RegistrationSource.CIMD],
        created__lt=now - UNUSED_CLIENT_AGE,
    ).exclude(pk__in=in_use)
    deleted = 0
    for stale in unused:  # one by one: each takes its registration token with it
        stale.delete()
        deleted += 1
    return deleted


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
