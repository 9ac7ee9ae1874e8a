"""Changes made by the OAuth server: signed-in devices and connected apps, device grants,
self-registered clients and spent authorization codes. Each function is one transaction;
`actor` is the person acting."""

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_grant_model,
    get_refresh_token_model,
    revoke_access_token,
)

from accounts.models import User, hash_token
from core.errors import BadRequest, NotFound, Unauthorized
from oauth.device_flow import (
    ALREADY_REDEEMED,
    CANCELLED,
    POLL_GRACE,
    REDEEMED,
    SLOW_DOWN_STEP,
    device_code_digest,
    device_name,
    parse_user_agent,
    printable,
)
from oauth.models import (
    CLIENT_VERSION_MAX_LENGTH,
    DEVICE_NAME_MAX_LENGTH,
    USER_AGENT_MAX_LENGTH,
    DeviceDetails,
    SecondFactorToken,
    SpentAuthorizationCode,
)
from oauth.selectors import device_grant_find, device_grant_problem

# The bearer check calls the touches at most once per LAST_USED_RESOLUTION per token (see
# oauth.selectors.bearer_get): one UPDATE each.


def oauth_token_touch(*, token_id) -> None:
    """Record that an OAuth access token without device details was used now, in the toolkit's
    `updated` column (the dashboard's "last used")."""
    get_access_token_model().objects.filter(pk=token_id).update(updated=timezone.now())


def device_touch(*, details_id: str, address: str | None = None) -> None:
    """Record that a device's token was used now, from `address`."""
    DeviceDetails.objects.filter(pk=details_id).update(last_used_at=timezone.now(), last_used_address=address)


# Devices signed in through the device flow, and apps connected by signing themselves in


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
    application = (
        get_application_model()
        .objects.filter(
            pk=app_id if str(app_id).isdecimal() else None,
            authorization_grant_type=get_application_model().GRANT_AUTHORIZATION_CODE,
        )
        .first()
    )
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
    """Tie the grant's details to the access token it was just redeemed for (same transaction),
    and note the token as issued after a second factor when the approval was."""
    token = get_access_token_model().objects.filter(token_checksum=hash_token(access_token))
    details = DeviceDetails.objects.filter(grant=grant)
    details.update(access_token=token.values("pk")[:1], created_at=timezone.now())
    if details.filter(second_factor=True).exists():
        second_factor_token_record(access_token=access_token)


# Tokens issued after a second factor (oauth.models.SecondFactorToken)


def second_factor_grant_record(*, code: str, application) -> None:
    """The consent page's grant for `code` was approved in a session that had passed a second
    factor."""
    grant = get_grant_model().objects.filter(code=code, application=application).first()
    SecondFactorToken.objects.create(grant=grant)


def second_factor_of_request(request) -> bool:
    """Whether the token oauthlib's `request` is about to issue follows a second factor: the code's
    grant was approved after one, or the refresh token's access token was issued after one."""
    if request.grant_type == "authorization_code":
        found = SecondFactorToken.objects.filter(grant__code=request.code, grant__application=request.client)
        return found.exists()
    if request.grant_type == "refresh_token":
        refreshed = getattr(request, "refresh_token_instance", None)
        found = SecondFactorToken.objects.filter(access_token_id=getattr(refreshed, "access_token_id", None))
        return refreshed is not None and found.exists()
    return False


def second_factor_token_record(*, access_token: str) -> None:
    """The access token with this value (as just issued) follows a second factor."""
    token = get_access_token_model().objects.filter(token_checksum=hash_token(access_token)).first()
    SecondFactorToken.objects.get_or_create(access_token=token)


# Device grants: every state change is one conditional UPDATE, so a code is approved, denied or
# redeemed exactly once, even under concurrent requests.


def device_grant_decide(*, actor: User, address: str, raw_code: str, approve: bool, second_factor: bool = False):
    """Approve or deny a pending grant for `actor`, `second_factor` when the session deciding had
    signed in with one. Exactly one decision wins."""
    grant = device_grant_find(viewer=actor, address=address, raw_code=raw_code)
    model = get_device_grant_model()
    decided = model.objects.filter(pk=grant.pk, status=model.AUTHORIZATION_PENDING, expires__gt=timezone.now()).update(
        status=model.AUTHORIZED if approve else model.DENIED, user=actor
    )
    if not decided:
        problem = device_grant_problem(model.objects.filter(pk=grant.pk).first())
        raise BadRequest(problem or "This code has already been used.")
    if approve and second_factor:
        DeviceDetails.objects.filter(grant=grant).update(second_factor=True)
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
    cancelled = model.objects.filter(pk=grant.pk, status__in=(model.AUTHORIZATION_PENDING, model.AUTHORIZED)).update(
        status=CANCELLED
    )
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


# Authorization codes (clients that sign themselves in). A code is good for one exchange; the
# checksum of each spent code is kept until the purge after it would have expired.
SPENT_CODE_KEPT = timedelta(hours=1)


def authorization_code_spend(*, code: str, application, access_token: str, refresh_token: str | None) -> None:
    """Remember that `code` was exchanged for these tokens (plaintexts, as just issued)."""
    tokens = get_refresh_token_model().objects.filter(token_checksum=hash_token(refresh_token or ""))
    family = tokens.values_list("token_family", flat=True).first()
    issued = get_access_token_model().objects.filter(token_checksum=hash_token(access_token)).first()
    SpentAuthorizationCode.objects.create(
        code_hash=hash_token(code),
        application=application,
        access_token=issued,
        token_family=family,
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
