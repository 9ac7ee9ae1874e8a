"""Changes to people and their personal API tokens; each function is one transaction."""

import secrets
from datetime import timedelta

from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from accounts.models import DISPLAY_MAX_LENGTH, TOKEN_NAME_MAX_LENGTH, ApiToken, User, hash_token
from core.errors import BadRequest, Conflict, NotFound

# Refresh last_used_at at most this often, so reads don't write on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


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


def new_token_plaintext() -> str:
    # A fixed prefix: never starts with "-" (the client takes it as an argument) and lets secret
    # scanners recognise it. 32 random bytes = 256 bits.
    return ApiToken.PREFIX + secrets.token_urlsafe(32)


@transaction.atomic
def api_token_create(*, user: User, name: str) -> tuple[ApiToken, str]:
    """Mint a token. Returns the row and the plaintext, which is never stored."""
    name = (name or "").strip()
    if not name:
        raise BadRequest("a token needs a name, e.g. laptop or ci")
    if len(name) > TOKEN_NAME_MAX_LENGTH:
        raise BadRequest(f"a token name is at most {TOKEN_NAME_MAX_LENGTH} characters")
    plaintext = new_token_plaintext()
    token = ApiToken.objects.create(
        user=user, name=name, token_hash=hash_token(plaintext), hint=plaintext[:8]
    )
    return token, plaintext


@transaction.atomic
def api_token_revoke(*, user: User, token_id: str) -> ApiToken:
    token = ApiToken.objects.filter(user=user, pk=token_id, revoked_at__isnull=True).first()
    if token is None:
        raise NotFound("token not found")
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token


def api_token_touch(*, token: ApiToken) -> None:
    """Record use, at most once per LAST_USED_RESOLUTION."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


@transaction.atomic
def user_update_display(*, user: User, display: str) -> User:
    """Set the name teams see; empty falls back to the username."""
    display = (display or "").strip()
    if len(display) > DISPLAY_MAX_LENGTH:
        raise BadRequest(f"a display name is at most {DISPLAY_MAX_LENGTH} characters")
    user.display = display
    user.save(update_fields=["display"])
    return user


@transaction.atomic
def user_delete(*, user: User) -> None:
    """Delete the account and its personal packets.

    Teams the user owns must be transferred or deleted first (Conflict otherwise). Packets the
    user created in teams stay with their team: the team's owner becomes their owner of record,
    so leaving the hub does not take shared knowledge away from the team.
    """
    from packets.models import Packet
    from teams.models import Team
    from teams.selectors import teams_owned

    owned = list(teams_owned(viewer=user).values_list("name", flat=True))
    if owned:
        raise Conflict(
            "transfer or delete the teams you own before deleting your account: " + ", ".join(owned)
        )
    team_owner = Team.objects.filter(pk=OuterRef("team_id")).values("owner_id")[:1]
    Packet.objects.filter(owner=user, team__isnull=False).update(owner_id=Subquery(team_owner))
    user.delete()
