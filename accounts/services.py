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

from accounts.device_flow import (
    ALREADY_REDEEMED, CANCELLED, POLL_GRACE, REDEEMED, SLOW_DOWN_STEP, device_code_digest, device_name,
    parse_user_agent, printable,
)
from accounts.models import (
    CLIENT_VERSION_MAX_LENGTH, DEVICE_NAME_MAX_LENGTH, DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH, TOKEN_SCOPES,
    USER_AGENT_MAX_LENGTH, ApiToken, DeviceDetails, SpentAuthorizationCode, User, hash_token,
)
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
    *, actor: User, name: str, scope: str = "read write", expires_in_days: int | None = None
) -> tuple[ApiToken, str]:
    """Mint a token of `actor` with `scope` (see TOKEN_SCOPES) that expires after
    `expires_in_days` (None: never). Returns the row and the plaintext, which is never stored."""
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
        user=actor, name=name, token_hash=hash_token(plaintext), hint=plaintext[:8], scope=scope, expires_at=expires_at
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


# The bearer check calls these at most once per LAST_USED_RESOLUTION per token (see
# accounts.selectors.bearer_get): one UPDATE each.


def api_token_touch(*, token_id: str, address: str | None = None) -> None:
    """Record that a personal API token was used now, from `address`."""
    ApiToken.objects.filter(pk=token_id).update(last_used_at=timezone.now(), last_used_address=address)


def oauth_token_touch(*, token_id) -> None:
    """Record that an OAuth access token without device details was used now, in the toolkit's
    `updated` column (the dashboard's "last used")."""
    get_access_token_model().objects.filter(pk=token_id).update(updated=timezone.now())


def device_touch(*, details_id: str, address: str | None = None) -> None:
    """Record that a device's token was used now, from `address`."""
    DeviceDetails.objects.filter(pk=details_id).update(last_used_at=timezone.now(), last_used_address=address)


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


def _own_access_token(*, actor: User, device_id):
    token = None
    if str(device_id).isdecimal():
        token = get_access_token_model().objects.filter(user=actor, pk=int(device_id)).first()
    if token is None:
        raise NotFound("device not found")
    return token


@transaction.atomic
def device_rename(*, actor: User, device_id, name: str) -> DeviceDetails:
    """Give one of the actor's devices a name of their own. Someone else's id answers 404."""
    token = _own_access_token(actor=actor, device_id=device_id)
    name = printable(name or "")
    if not name:
        raise BadRequest("a device needs a name, e.g. work laptop")
    if len(name) > DEVICE_NAME_MAX_LENGTH:
        raise BadRequest(f"a device name is at most {DEVICE_NAME_MAX_LENGTH} characters")
    details, _ = DeviceDetails.objects.update_or_create(access_token=token, defaults={"name": name})
    return details


def device_request_record(*, device_code: str, address: str, user_agent: str, requested_name: str) -> DeviceDetails:
    """Note who asked for a new grant (POST /oauth/authorize_device), for the confirmation page
    and the device's row once signed in."""
    user_agent = printable(user_agent)[:USER_AGENT_MAX_LENGTH]
    _label, version = parse_user_agent(user_agent)
    return DeviceDetails.objects.create(
        grant=get_device_grant_model().objects.get(device_code=device_code_digest(device_code)),
        name=device_name(requested=requested_name, user_agent=user_agent, max_length=DEVICE_NAME_MAX_LENGTH),
        user_agent=user_agent,
        client_version=version[:CLIENT_VERSION_MAX_LENGTH],
        requested_from=address,
    )


def device_signed_in(*, grant, access_token: str) -> None:
    """Tie the grant's details to the access token it was just redeemed for (same transaction)."""
    token = get_access_token_model().objects.filter(token_checksum=hash_token(access_token))
    DeviceDetails.objects.filter(grant=grant).update(access_token=token.values("pk")[:1], created_at=timezone.now())


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
    model = get_device_grant_model()
    grant = _client_grant(device_code=device_code, client_id=client_id)
    if grant.status == REDEEMED:
        raise BadRequest(ALREADY_REDEEMED, code="invalid_grant")
    if grant.status == model.DENIED:
        raise BadRequest("the sign-in was denied", code="access_denied")
    if grant.status == CANCELLED:
        raise BadRequest("the sign-in was cancelled on the device", code="access_denied")
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


def _client_grant(*, device_code: str, client_id: str):
    """The grant of this client with this device_code; the errors of RFC 6749 section 5.2
    otherwise: an unknown client before anything about the code, and a code of another client is
    as unknown as a made-up one."""
    if not client_id:
        raise BadRequest("client_id is missing", code="invalid_request")
    if not get_application_model().objects.filter(client_id=client_id).exists():
        raise Unauthorized("unknown client_id", code="invalid_client")
    if not device_code:
        raise BadRequest("device_code is missing", code="invalid_request")
    grants = get_device_grant_model().objects
    grant = grants.filter(device_code=device_code_digest(device_code), client_id=client_id).first()
    if grant is None:
        raise BadRequest("unknown device_code", code="invalid_grant")
    return grant


def device_grant_cancel(*, device_code: str, client_id: str) -> None:
    """The client gave up on the code (Ctrl-C): nobody can approve it any more, and an approval
    already given yields no token. Cancelling twice, or a denied or expired code, is fine; a code
    already exchanged for a token is not (sign that device out instead)."""
    grant = _client_grant(device_code=device_code, client_id=client_id)
    model = get_device_grant_model()
    cancelled = model.objects.filter(
        pk=grant.pk, status__in=(model.AUTHORIZATION_PENDING, model.AUTHORIZED)
    ).update(status=CANCELLED)
    if not cancelled and model.objects.filter(pk=grant.pk, status=REDEEMED).exists():
        raise BadRequest(ALREADY_REDEEMED, code="invalid_grant")


def device_grant_redeem(*, grant) -> bool:
    """Claim an authorized grant for its one token; False when another request claimed it."""
    model = get_device_grant_model()
    return bool(model.objects.filter(pk=grant.pk, status=model.AUTHORIZED).update(status=REDEEMED))


def device_grants_purge(*, now=None) -> int:
    """Delete grants past their expiry (whatever their state), and the details of those that
    never became a signed-in device. Returns how many grants."""
    now = now or timezone.now()
    expired = get_device_grant_model().objects.filter(expires__lt=now)
    DeviceDetails.objects.filter(grant__in=expired, access_token__isnull=True).delete()
    deleted, _ = expired.delete()
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


# Authorization codes (clients that sign themselves in). A code is good for one exchange; the
# checksum of each spent code is kept until the purge after it would have expired.
SPENT_CODE_KEPT = timedelta(hours=1)


def authorization_code_spend(*, code: str, application, access_token: str, refresh_token: str | None) -> None:
    """Remember that `code` was exchanged for these tokens (plaintexts, as just issued)."""
    tokens = get_refresh_token_model().objects.filter(token_checksum=hash_token(refresh_token or ""))
    family = tokens.values_list("token_family", flat=True).first()
    issued = get_access_token_model().objects.filter(token_checksum=hash_token(access_token)).first()
    SpentAuthorizationCode.objects.create(
        code_hash=hash_token(code), application=application, access_token=issued, token_family=family,
        expires_at=timezone.now() + SPENT_CODE_KEPT,
    )


def authorization_code_replayed(*, code: str, application) -> bool:
    """A code is presented again: revoke every token its first exchange issued (the access token,
    the refresh token and those rotated from it). False when the code was never spent here."""
    spent = SpentAuthorizationCode.objects.filter(code_hash=hash_token(code), application=application).first()
    if spent is None:
        return False
    with transaction.atomic():
        if spent.token_family:
            get_refresh_token_model().revoke_family(spent.token_family)
        if spent.access_token_id:
            get_access_token_model().objects.filter(pk=spent.access_token_id).delete()
    return True


def spent_codes_purge(*, now=None) -> int:
    deleted, _ = SpentAuthorizationCode.objects.filter(expires_at__lt=now or timezone.now()).delete()
    return deleted
