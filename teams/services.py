"""Changes to teams, memberships and invites; each function is one transaction.

Callers pass a `team` they resolved for the actor (teams.selectors.team_get_for_member); the
services still check the actor's role themselves, so no surface can skip the rule: a
non-member gets 404 (as if the team didn't exist), a member trying an owner-only action 403.

One lock order for everything that touches a team: the team row first, then the rows that
belong to it. Team-wide changes (delete, transfer, remove, leave, revoke) lock it FOR UPDATE;
writes that only add to a team (a push, an invite, a join) hold it FOR KEY SHARE, so any number
of them run side by side, a deletion waits for them, and they find no team once it is gone
(instead of failing at commit on the foreign key, or deadlocking against the deletion).
"""

import re
import secrets

from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import DISPLAY_MAX_LENGTH, User
from accounts.services import api_token_create
from core.errors import BadRequest, Conflict, Forbidden, Gone, NotFound
from teams.models import INVITE_LIFETIME, TEAM_NAME_PATTERN, Invite, Membership, Team, invite_code_hash

INVITE_GONE = "invite expired or already consumed"
# The name of the personal token minted for someone who joins from the command line.
JOIN_TOKEN_NAME = "ltm join"


def new_invite_code() -> str:
    # 24 random bytes = 192 bits, as 48 hex characters (the reference's shape; URL-safe and
    # never starting with "-").
    return secrets.token_hex(24)


def _membership(*, person, team) -> Membership | None:
    return Membership.objects.filter(team=team, user=person).first()


def _require_member(*, actor, team) -> Membership:
    membership = _membership(person=actor, team=team)
    if membership is None:
        raise NotFound("team not found")
    return membership


def _require_owner(*, actor, team) -> Membership:
    membership = _require_member(actor=actor, team=team)
    if membership.role != Membership.OWNER:
        raise Forbidden("only the team owner can do this")
    return membership


def _locked(team) -> Team:
    """The team row, locked for a team-wide change (see the module docstring)."""
    locked = Team.objects.select_for_update().filter(pk=team.pk).first()
    if locked is None:
        raise NotFound("team not found")
    return locked


def team_hold(*, team_id: str) -> None:
    """Keep the team from being deleted until this transaction ends, for a write that adds a row
    to it; NotFound once it is gone. (SQLite runs one writer at a time: nothing to hold there.)"""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT 1 FROM {Team._meta.db_table} WHERE id = %s FOR KEY SHARE", [team_id])
            found = cursor.fetchone() is not None
    else:
        found = Team.objects.filter(pk=team_id).exists()
    if not found:
        raise NotFound("team not found")


# Teams and memberships


@transaction.atomic
def team_create(*, actor, name) -> Team:
    if not isinstance(name, str) or not re.fullmatch(TEAM_NAME_PATTERN, name):
        raise BadRequest(
            "a team name is 1 to 40 characters: lower-case letters, digits, '-' and '_', "
            "starting with a letter or digit"
        )
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name, owner=actor)
    except IntegrityError:  # the unique name, also under a concurrent create
        raise Conflict(f"team name {name!r} is already taken") from None
    Membership.objects.create(team=team, user=actor, role=Membership.OWNER)
    return team


@transaction.atomic
def team_delete(*, actor, team) -> None:
    """The owner deletes the team, its memberships, invites and packets."""
    team = _locked(team)
    _require_owner(actor=actor, team=team)
    team.packets.all().delete()
    team.delete()


@transaction.atomic
def membership_remove(*, actor, team, user_id: str) -> None:
    team = _locked(team)
    _require_owner(actor=actor, team=team)
    membership = Membership.objects.filter(team=team, user_id=user_id).first()
    if membership is None:
        raise NotFound("member not found")
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner cannot be removed; transfer ownership or delete the team")
    membership.delete()


@transaction.atomic
def team_leave(*, actor, team) -> None:
    team = _locked(team)
    membership = _require_member(actor=actor, team=team)
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner cannot leave the team; transfer ownership or delete the team")
    membership.delete()


@transaction.atomic
def team_transfer(*, actor, team, new_owner_id: str) -> Team:
    """Make another member the owner; the old owner stays on as a member."""
    team = _locked(team)
    old = _require_owner(actor=actor, team=team)
    new = Membership.objects.filter(team=team, user_id=new_owner_id).first()
    if new is None:
        raise NotFound("member not found")
    if new.pk == old.pk:
        return team
    old.role, new.role = Membership.MEMBER, Membership.OWNER
    old.save(update_fields=["role"])
    new.save(update_fields=["role"])
    team.owner_id = new.user_id
    team.save(update_fields=["owner"])
    return team


# Invites


@transaction.atomic
def invite_create(*, actor, team) -> tuple[Invite, str]:
    """Any member mints an invite. Returns the row and the code, which is never stored."""
    team_hold(team_id=team.pk)
    _require_member(actor=actor, team=team)
    code = new_invite_code()
    now = timezone.now()
    invite = Invite.objects.create(
        team=team,
        code_hash=invite_code_hash(code),
        created_by=actor,
        created_at=now,
        expires_at=now + INVITE_LIFETIME,
    )
    return invite, code


@transaction.atomic
def invite_revoke(*, actor, team, invite_id: str) -> Invite:
    """The owner revokes an unused invite; revoking it again changes nothing."""
    team = _locked(team)
    _require_owner(actor=actor, team=team)
    now = timezone.now()
    Invite.objects.filter(pk=invite_id, team=team, used_at__isnull=True, revoked_at__isnull=True).update(
        revoked_at=now
    )
    invite = Invite.objects.filter(pk=invite_id, team=team).first()
    if invite is None:
        raise NotFound("invite not found")
    if invite.used_at is not None:
        raise Conflict("this invite was already used; remove the member instead")
    return invite


def _claim(*, code_hash: str, now) -> Invite:
    """Spend the invite with one conditional UPDATE: among concurrent accepts exactly one sees
    a row updated; the others (and any used, revoked, expired or unknown code) get 410."""
    claimed = Invite.objects.usable(now).filter(code_hash=code_hash).update(used_at=now)
    if claimed != 1:
        raise Gone(INVITE_GONE)
    return Invite.objects.select_related("team").get(code_hash=code_hash)


def _display_of(display) -> str:
    if display is None:
        return ""
    if not isinstance(display, str):
        raise BadRequest("display must be a string")
    display = " ".join(display.split())
    if len(display) > DISPLAY_MAX_LENGTH:
        raise BadRequest(f"display is at most {DISPLAY_MAX_LENGTH} characters")
    return display


def _new_joiner(display: str) -> User:
    """A user for someone joining from the command line: no password (see accounts.services.claim_code_create for
    how they get a web sign-in later) and a unique username derived from the display name."""
    base = slugify(display)[:30].strip("-_")
    # Without a name, "user-3fa9c2": a bare "member" would read like the role in member lists.
    candidates = ([base] if base else []) + [f"{base or 'user'}-{secrets.token_hex(3)}" for _ in range(5)]
    for username in candidates:
        if User.objects.filter(username=username).exists():
            continue
        try:
            with transaction.atomic():  # a concurrent join may take the same name
                user = User(username=username, display=display, email="")
                user.set_unusable_password()
                user.save()
                return user
        except IntegrityError:
            continue
    raise Conflict("could not find a free username; try again")


@transaction.atomic
def invite_accept(*, code, actor=None, display=None):
    """Join the invite's team. Returns (user, team, plaintext_token_or_None).

    `actor` is the signed-in person joining. Without one (an anonymous `ltm join`), a new user,
    their personal API token and the membership are created in this one transaction, after the
    invite is claimed: a losing concurrent accept creates nothing.
    Someone who already belongs to the team gets a success without spending the invite, so the
    link still works for the person it was meant for (a used, revoked or expired code is a 410
    for them too).
    """
    if not isinstance(code, str) or not code:
        raise Gone(INVITE_GONE)
    display = _display_of(display)
    code_hash = invite_code_hash(code)
    now = timezone.now()

    invite = Invite.objects.usable(now).select_related("team").filter(code_hash=code_hash).first()
    if invite is None:
        raise Gone(INVITE_GONE)
    try:
        team_hold(team_id=invite.team_id)
    except NotFound:  # the team was deleted, and its invites with it
        raise Gone(INVITE_GONE) from None

    if actor is not None:
        if _membership(person=actor, team=invite.team) is not None:
            return actor, invite.team, None
        try:
            with transaction.atomic():
                invite = _claim(code_hash=code_hash, now=now)
                Membership.objects.create(team=invite.team, user=actor, role=Membership.MEMBER)
        except IntegrityError:
            # They joined through another invite at the same moment: keep this one unspent.
            return actor, invite.team, None
        Invite.objects.filter(pk=invite.pk).update(used_by=actor)
        return actor, invite.team, None

    invite = _claim(code_hash=code_hash, now=now)
    user = _new_joiner(display)
    _, plaintext = api_token_create(actor=user, name=JOIN_TOKEN_NAME)
    Membership.objects.create(team=invite.team, user=user, role=Membership.MEMBER)
    Invite.objects.filter(pk=invite.pk).update(used_by=user)
    return user, invite.team, plaintext
