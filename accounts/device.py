"""The device flow (RFC 8628) as state changes and reads, and the devices it signs in.

Every state change of a device grant here is one conditional UPDATE (a code is approved, denied or
redeemed exactly once, even under concurrent requests). The HTTP layers are `accounts.oauth`
(the /oauth endpoints the client calls) and `accounts.device_views` (the /device pages).

Grant life: authorization-pending -> authorized | denied (the person decides on /device)
-> redeemed (the client got its one token). Past `expires`, a grant that was not redeemed answers
`expired_token`. `redeemed` is our own status value: django-oauth-toolkit's DeviceGrant has no
state for "token already issued", and without one a device_code could be exchanged again and
again.
"""

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    revoke_access_token,
)

from accounts.models import hash_token
from accounts.services import LAST_USED_RESOLUTION
from core.errors import NotFound

CLI_CLIENT_ID = "ltm-cli"

# RFC 8628 section 6.1: consonants only, so no words can form, and no digits, so nothing to
# confuse (0/O, 1/I/L, 5/S, 8/B).
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH = 8  # 20**8 = 2.56e10 codes (34.6 bits)

DEVICE_CODE_LIFETIME = timedelta(minutes=10)
POLL_INTERVAL = 5  # seconds, the `interval` of the authorization response
SLOW_DOWN_STEP = 5  # RFC 8628 section 3.5: the client adds 5 s on slow_down, and so do we
# A poll this much early still counts as on time (clocks and networks jitter).
POLL_GRACE = timedelta(milliseconds=500)

REDEEMED = "redeemed"
ALREADY_REDEEMED = "this device_code has already been exchanged for a token"

# Brute force on the verification page: failed code entries per window, per person and per address.
CODE_ENTRY_WINDOW = timedelta(hours=1)
CODE_ENTRY_LIMIT_PER_USER = 10
CODE_ENTRY_LIMIT_PER_ADDRESS = 30


# ---------------------------------------------------------------------------------------------
# Devices signed in through the device flow (the dashboard shows and revokes these)


@dataclass(frozen=True)
class Device:
    """One signed-in client: an unexpired OAuth access token of the viewer."""

    id: str
    application_name: str
    scopes: tuple
    created: datetime
    last_used: datetime
    expires: datetime


def devices_for_user(*, viewer) -> list[Device]:
    """The viewer's active OAuth access tokens, newest first. `last_used` is refreshed at most
    once a minute (see accounts.authentication)."""
    tokens = (
        get_access_token_model()
        .objects.filter(user=viewer, expires__gt=timezone.now())
        .select_related("application")
        .order_by("-created")
    )
    return [
        Device(
            id=str(token.pk),
            application_name=token.application.name if token.application else "unknown client",
            scopes=tuple(token.scope.split()),
            created=token.created,
            last_used=token.updated,
            expires=token.expires,
        )
        for token in tokens
    ]


def oauth_access_token_find(plaintext: str):
    """The live access token with this value (matched by its SHA-256 checksum), or None.
    Records its use in `updated` at most once per LAST_USED_RESOLUTION."""
    model = get_access_token_model()
    checksum = hash_token(plaintext)
    now = timezone.now()
    token = (
        model.objects.select_related("user", "application")
        .filter(token_checksum=checksum, expires__gt=now, user__is_active=True)
        .first()
    )
    if token is not None and now - token.updated >= LAST_USED_RESOLUTION:
        model.objects.filter(pk=token.pk).update(updated=now)
        token.updated = now
    return token


@transaction.atomic
def device_revoke(*, user, device_id) -> None:
    """Sign a device out: its token stops working at once. Someone else's id answers 404."""
    token = None
    if str(device_id).isdigit():
        tokens = get_access_token_model().objects.select_for_update()
        token = tokens.filter(user=user, pk=int(device_id)).first()
    if token is None:
        raise NotFound("device not found")
    revoke_access_token(token)


# ---------------------------------------------------------------------------------------------
# User codes


def normalize_user_code(raw: str) -> str:
    """What a person typed, as stored: upper case, without spaces and dashes."""
    return re.sub(r"[\s\-]+", "", raw or "").upper()


def format_user_code(code: str) -> str:
    """XXXX-XXXX, as the client prints it."""
    return f"{code[:4]}-{code[4:]}" if len(code) == USER_CODE_LENGTH else code


def new_user_code() -> str:
    """A fresh user code, unique among the grants still in the table (the purge task removes
    old ones), so that a code names one grant."""
    grants = get_device_grant_model().objects
    while True:
        code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
        if not grants.filter(user_code=code).exists():
            return code


# ---------------------------------------------------------------------------------------------
# The verification page: find, approve, deny


class CodeProblem(Exception):
    """A user code that cannot be approved; `message` tells the person why."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TooManyAttempts(CodeProblem):
    """Past the rate limit of failed code entries."""


def _attempt_keys(*, user, address: str) -> list[tuple[str, int]]:
    return [
        (f"device-code-misses:user:{user.pk}", CODE_ENTRY_LIMIT_PER_USER),
        (f"device-code-misses:addr:{address}", CODE_ENTRY_LIMIT_PER_ADDRESS),
    ]


def _record_miss(keys) -> None:
    window = int(CODE_ENTRY_WINDOW.total_seconds())
    for key, _ in keys:
        cache.add(key, 0, window)  # starts the window on the first miss
        try:
            cache.incr(key)
        except ValueError:  # the window ended between add and incr
            cache.set(key, 1, window)


def device_grant_find(*, user, address: str, raw_code: str):
    """The pending grant for what the person typed; CodeProblem otherwise.

    Failed entries are counted per person and per address; past the limit every entry is refused
    before the lookup, so a guess can neither succeed nor be confirmed."""
    keys = _attempt_keys(user=user, address=address)
    if any((cache.get(key) or 0) >= limit for key, limit in keys):
        minutes = int(CODE_ENTRY_WINDOW.total_seconds() // 60)
        raise TooManyAttempts(f"Too many wrong codes. Wait up to {minutes} minutes, then try again.")

    code = normalize_user_code(raw_code)
    grant = None
    if len(code) == USER_CODE_LENGTH and set(code) <= set(USER_CODE_ALPHABET):
        grant = get_device_grant_model().objects.filter(user_code=code).first()
    problem = _problem_with(grant)
    if problem:
        _record_miss(keys)
        raise CodeProblem(problem)
    return grant


def _problem_with(grant) -> str | None:
    if grant is None:
        return "We don't know this code. Check it against the one your terminal shows."
    if grant.status == grant.DENIED or grant.status == grant.AUTHORIZED or grant.status == REDEEMED:
        return "This code has already been used. Run `ltm auth` again to get a new one."
    if grant.status == grant.EXPIRED or grant.expires <= timezone.now():
        return "This code has expired (codes last 10 minutes). Run `ltm auth` again to get a new one."
    return None


def device_grant_decide(*, user, address: str, raw_code: str, approve: bool):
    """Approve or deny a pending grant for `user`. Exactly one decision wins."""
    grant = device_grant_find(user=user, address=address, raw_code=raw_code)
    model = get_device_grant_model()
    decided = model.objects.filter(
        pk=grant.pk, status=model.AUTHORIZATION_PENDING, expires__gt=timezone.now()
    ).update(status=model.AUTHORIZED if approve else model.DENIED, user=user)
    if not decided:
        problem = _problem_with(model.objects.filter(pk=grant.pk).first())
        raise CodeProblem(problem or "This code has already been used.")
    grant.refresh_from_db()
    return grant


def application_for(grant):
    return get_application_model().objects.filter(client_id=grant.client_id).first()


# ---------------------------------------------------------------------------------------------
# Polling: what the token endpoint answers before it issues a token


class PollError(Exception):
    """An RFC 8628 section 3.5 / RFC 6749 section 5.2 error for the token endpoint."""

    def __init__(self, error: str, description: str, status: int = 400):
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


def device_poll_check(*, device_code: str, client_id: str):
    """The grant to redeem, or PollError with what the client must hear.

    Order: an unknown client (invalid_client) before anything about the code; a code of another
    client is as unknown as a made-up one (invalid_grant); then the grant's state. Polling faster
    than the grant's interval while pending answers slow_down, and the interval grows by 5 s as
    the client's does."""
    if not client_id:
        raise PollError("invalid_request", "client_id is missing")
    if not get_application_model().objects.filter(client_id=client_id).exists():
        raise PollError("invalid_client", "unknown client_id", status=401)
    if not device_code:
        raise PollError("invalid_request", "device_code is missing")

    model = get_device_grant_model()
    grant = model.objects.filter(device_code=device_code, client_id=client_id).first()
    if grant is None:
        raise PollError("invalid_grant", "unknown device_code")
    if grant.status == REDEEMED:
        raise PollError("invalid_grant", ALREADY_REDEEMED)
    if grant.status == model.DENIED:
        raise PollError("access_denied", "the sign-in was denied")
    now = timezone.now()
    if grant.status == model.EXPIRED or grant.expires <= now:
        raise PollError("expired_token", "the device code expired; start again")
    if grant.status == model.AUTHORIZATION_PENDING:
        on_time = model.objects.filter(
            pk=grant.pk, last_checked__lte=now - timedelta(seconds=grant.interval) + POLL_GRACE
        ).update(last_checked=now)
        if not on_time:
            model.objects.filter(pk=grant.pk).update(interval=F("interval") + SLOW_DOWN_STEP)
            raise PollError("slow_down", f"poll at most every {grant.interval + SLOW_DOWN_STEP} seconds")
        raise PollError("authorization_pending", "waiting for the person to approve")
    return grant


def device_grant_redeem(*, grant) -> bool:
    """Claim an authorized grant for its one token; False when another request claimed it."""
    model = get_device_grant_model()
    return bool(model.objects.filter(pk=grant.pk, status=model.AUTHORIZED).update(status=REDEEMED))


# ---------------------------------------------------------------------------------------------
# Housekeeping


def device_grants_purge(*, now=None) -> int:
    """Delete grants past their expiry (whatever their state). Returns how many."""
    now = now or timezone.now()
    deleted, _ = get_device_grant_model().objects.filter(expires__lt=now).delete()
    return deleted


def cli_token_lifetime() -> timedelta:
    return timedelta(days=settings.LTM_CLI_TOKEN_LIFETIME_DAYS)
