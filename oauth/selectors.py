"""Reads of the OAuth server: signed-in devices and connected apps, device grants, and bearer
tokens (personal API tokens and OAuth access tokens, checked in one statement)."""

import functools
import json
from dataclasses import dataclass, replace
from datetime import datetime
from urllib.parse import urlsplit

from django.db import connection
from django.utils import timezone
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_device_grant_model,
    get_refresh_token_model,
)

from accounts.models import LAST_USED_RESOLUTION, ApiToken, User, hash_token
from core.errors import BadRequest
from ltm.protocol.tokens import token_hint
from oauth import code_attempts
from oauth.device_flow import CANCELLED, REDEEMED, is_well_formed_user_code, normalize_user_code, parse_user_agent
from oauth.models import SELF_REGISTERED_SOURCES, DeviceDetails, SecondFactorToken


@dataclass(frozen=True)
class Device:
    """One signed-in client: an unexpired OAuth access token of the viewer, with what the device
    flow recorded about the machine (empty for a token made without it)."""

    id: str
    application_name: str
    scopes: tuple
    created: datetime
    last_used: datetime
    expires: datetime
    hint: str  # what `ltm auth whoami` prints as token_hash8 on that machine
    name: str = ""
    client: str = ""
    client_version: str = ""
    requested_from: str | None = None
    last_used_address: str | None = None


def _device(token) -> Device:
    application_name = token.application.name if token.application else "unknown client"
    device = Device(
        id=str(token.pk),
        application_name=application_name,
        scopes=tuple(token.scope.split()),
        created=token.created,
        last_used=token.updated,
        expires=token.expires,
        hint=token_hint(token.token_checksum),
        name=application_name,
    )
    details = getattr(token, "device_details", None)
    if details is None:
        return device
    return replace(
        device,
        name=details.name,
        client=parse_user_agent(details.user_agent)[0] if details.user_agent else "",
        client_version=details.client_version,
        requested_from=details.requested_from,
        last_used=details.last_used_at or token.updated,
        last_used_address=details.last_used_address,
    )


def device_list(*, viewer) -> list[Device]:
    """The viewer's active OAuth access tokens, newest first. `last_used` is refreshed at most
    once a minute (see oauth.authentication)."""
    tokens = (
        get_access_token_model()
        .objects.filter(user=viewer, expires__gt=timezone.now())
        .exclude(application__authorization_grant_type=get_application_model().GRANT_AUTHORIZATION_CODE)
        .select_related("application", "device_details")
        .order_by("-created")
    )
    return [_device(token) for token in tokens]


def device_get(*, viewer, device_id) -> Device | None:
    """One of the viewer's signed-in devices (None for someone else's or an unknown id)."""
    if not str(device_id).isdecimal():
        return None
    token = (
        get_access_token_model()
        .objects.filter(user=viewer, pk=int(device_id), expires__gt=timezone.now())
        .select_related("application", "device_details")
        .first()
    )
    return _device(token) if token else None


@dataclass(frozen=True)
class ConnectedApp:
    """A client that signed itself in as the viewer (an MCP client through /oauth/authorize) and
    can still act: an unexpired access token, or a refresh token to get one."""

    id: str
    name: str
    redirect_hosts: tuple
    scopes: tuple
    connected: datetime
    last_used: datetime | None


def connected_app_list(*, viewer) -> list[ConnectedApp]:
    """The viewer's connected apps, most recently connected first."""
    code_grant = get_application_model().GRANT_AUTHORIZATION_CODE
    tokens = list(
        get_access_token_model()
        .objects.filter(user=viewer, application__authorization_grant_type=code_grant, expires__gt=timezone.now())
        .select_related("application")
    )
    refreshable = (
        get_refresh_token_model()
        .objects.filter(user=viewer, application__authorization_grant_type=code_grant, revoked__isnull=True)
        .select_related("application")
    )
    apps: dict = {}
    for held in [*tokens, *refreshable]:
        app = held.application
        entry = apps.setdefault(app.pk, {"app": app, "scopes": set(), "connected": held.created, "last_used": None})
        entry["connected"] = min(entry["connected"], held.created)
        if hasattr(held, "scope"):  # access tokens: their scopes and last use
            entry["scopes"].update(held.scope.split())
            entry["last_used"] = max(filter(None, (entry["last_used"], held.updated)))
    return sorted(
        (
            ConnectedApp(
                id=str(pk),
                name=entry["app"].name or entry["app"].client_id,
                redirect_hosts=tuple(dict.fromkeys(urlsplit(uri).netloc for uri in entry["app"].redirect_uris.split())),
                scopes=tuple(sorted(entry["scopes"])),
                connected=entry["connected"],
                last_used=entry["last_used"],
            )
            for pk, entry in apps.items()
        ),
        key=lambda app: app.connected,
        reverse=True,
    )


# The verification page


def device_grant_problem(grant) -> str | None:
    """Why a person cannot decide on this grant (None: they can)."""
    if grant is None:
        return "We don't know this code. Check it against the one your terminal shows."
    if grant.status == CANCELLED:
        return "This sign-in request was cancelled in the terminal that asked for it. Run `ltm auth` again to get a new code."
    if grant.status in (grant.DENIED, grant.AUTHORIZED, REDEEMED):
        return "This code has already been used. Run `ltm auth` again to get a new one."
    if grant.status == grant.EXPIRED or grant.expires <= timezone.now():
        return "This code has expired (codes last 10 minutes). Run `ltm auth` again to get a new one."
    return None


def device_grant_find(*, viewer, address: str, raw_code: str):
    """The pending grant for what the person typed; BadRequest (or TooManyRequests past the limit
    of wrong entries) otherwise. A wrong entry counts against the viewer and the address."""
    code_attempts.refuse_when_over_limit(user=viewer, address=address)
    code = normalize_user_code(raw_code)
    grant = get_device_grant_model().objects.filter(user_code=code).first() if is_well_formed_user_code(code) else None
    problem = device_grant_problem(grant)
    if problem:
        code_attempts.record_miss(user=viewer, address=address)
        raise BadRequest(problem)
    return grant


def own_client_names() -> list[str]:
    """The names of the hub's own clients (not self-registered), as people see them."""
    applications = get_application_model().objects.exclude(registration_source__in=SELF_REGISTERED_SOURCES)
    return list(applications.exclude(name="").values_list("name", flat=True))


def device_grant_application(*, grant):
    return get_application_model().objects.filter(client_id=grant.client_id).first()


def device_grant_details(*, grant) -> DeviceDetails | None:
    """Who asked for this grant (None for a grant made before the hub recorded it)."""
    return DeviceDetails.objects.filter(grant=grant).first()


# Bearer tokens: one round trip per request

BEARER_USER_FIELDS = {"id", "username", "display", "email"}


@dataclass(frozen=True)
class Bearer:
    """What a valid bearer token proves: who, with which kind of token and which scopes, and
    whether its last use is old enough to record again."""

    user: User
    kind: str
    token_id: str
    scopes: frozenset
    use_unrecorded: bool
    device_id: str = ""  # the DeviceDetails of an OAuth token from the device flow, if any
    # The resources (RFC 8707) an OAuth token was issued for; empty: any of this hub's.
    audiences: tuple = ()
    # An OAuth token of a client that registered itself: it serves /mcp only, whatever resources
    # it names (those issued before the authorization endpoint held every such token to /mcp).
    self_registered: bool = False
    # Issued after a sign-in with a second factor (ApiToken.second_factor, SecondFactorToken).
    second_factor: bool = False


@functools.cache
def _bearer_query() -> tuple[str, list[str]]:
    """bearer_get's statement, built once per process, and the user fields it reads."""
    access_token = get_access_token_model()
    application = get_application_model()
    # In the model's field order, as User.from_db takes them; the others stay deferred.
    user_fields = [f for f in User._meta.concrete_fields if f.attname in BEARER_USER_FIELDS]
    user_columns = ", ".join(f"u.{field.column}" for field in user_fields)
    # The model's own constants, never input: written into the statement as literals.
    self_registered = ", ".join(f"'{source}'" for source in SELF_REGISTERED_SOURCES)
    sql = f"""
        SELECT 'api', t.id, t.scope, (t.last_used_at IS NULL OR t.last_used_at <= %s), '', NULL, FALSE,
               t.second_factor, {user_columns}
        FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id
        WHERE t.token_hash = %s AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > %s)
          AND u.is_active
        UNION ALL
        SELECT 'oauth', CAST(a.id AS varchar(26)), a.scope, COALESCE(d.last_used_at, a.updated) <= %s,
               COALESCE(d.id, ''), a.resource, COALESCE(c.registration_source IN ({self_registered}), FALSE),
               f.id IS NOT NULL, {user_columns}
        FROM {access_token._meta.db_table} a JOIN {User._meta.db_table} u ON u.id = a.user_id
        LEFT JOIN {DeviceDetails._meta.db_table} d ON d.access_token_id = a.id
        LEFT JOIN {application._meta.db_table} c ON c.id = a.application_id
        LEFT JOIN {SecondFactorToken._meta.db_table} f ON f.access_token_id = a.id
        WHERE a.token_checksum = %s AND a.expires > %s AND u.is_active
    """
    return sql, [field.attname for field in user_fields]


def bearer_get(*, plaintext: str) -> Bearer | None:
    """The live personal API token (not revoked, not expired) or OAuth access token (not expired)
    with this value (both are stored only as the SHA-256 of the value), with its active user;
    None when there is none. The last use of a device-flow token is kept on its DeviceDetails
    (time and address), of others on the token.

    Every /v1 request asks this, so it is one plain SQL statement over both token tables rather
    than two ORM queries: no ORM compilation on the hottest path, and no column it does not need
    (the password hash among them); the bench measures it (bench/README.md). Nothing is cached,
    so a revoked token fails on the very next request, on every web process."""
    sql, user_attnames = _bearer_query()
    now = timezone.now()
    stale_before = connection.ops.adapt_datetimefield_value(now - LAST_USED_RESOLUTION)
    checksum = hash_token(plaintext)
    now_value = connection.ops.adapt_datetimefield_value(now)
    params = [stale_before, checksum, now_value, stale_before, checksum, now_value]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    kind, token_id, scope, use_unrecorded, device_id, resource, self_registered, second_factor, *user_values = row
    user = User.from_db(connection.alias, user_attnames, user_values)
    # What the token says of the second factor, for the teams that require one (accounts.mfa).
    user.shown_second_factor = bool(second_factor)
    if isinstance(resource, str):  # SQLite keeps JSON as text; PostgreSQL's jsonb may arrive parsed
        resource = json.loads(resource)
    return Bearer(
        user=user,
        kind=kind,
        token_id=token_id,
        scopes=frozenset(scope.split()),
        use_unrecorded=bool(use_unrecorded),
        device_id=device_id,
        audiences=tuple(resource or ()),
        self_registered=bool(self_registered),
        second_factor=bool(second_factor),
    )


# GET /v1/me: who the bearer is, and which token it holds


@dataclass(frozen=True)
class TokenFacts:
    kind: str  # "personal" (a personal API token) or "oauth" (e.g. a device signed in with `ltm auth`)
    name: str
    hint: str
    scopes: tuple
    created_at: datetime
    expires_at: datetime | None


def bearer_token_facts(*, bearer: Bearer) -> TokenFacts:
    """What the bearer's own token is: its name, hint, scopes and expiry."""
    if bearer.kind == "api":
        token = ApiToken.objects.get(pk=bearer.token_id)
        return TokenFacts(
            kind="personal",
            name=token.name,
            hint=token.checksum_hint,
            scopes=tuple(token.scope.split()),
            created_at=token.created_at,
            expires_at=token.expires_at,
        )
    device = device_get(viewer=bearer.user, device_id=bearer.token_id)
    return TokenFacts(
        kind="oauth",
        name=device.name,
        hint=device.hint,
        scopes=device.scopes,
        created_at=device.created,
        expires_at=device.expires,
    )
