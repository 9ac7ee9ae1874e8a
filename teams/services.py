"""Changes to teams, memberships and invites; each function is one transaction.

Callers pass a `team` they resolved for the actor (teams.selectors.team_get_for_member); the
services still check the actor's role themselves, so no surface can skip the rule: a
non-member gets 404 (as if the team didn't exist), a member lacking the role 403.

Roles: the `owner` (one per team) may do everything; an `admin` may invite by e-mail, revoke and
resend invites, remove plain members and delete or publish any team packet; a `member` reads,
pushes and mints bare invite links (the protocol lets any member invite). Every change is also a
line in the team's activity log (TeamEvent), written in the same transaction.

One lock order for everything that touches a team: the team row first, then the rows that
belong to it. Team-wide changes (delete, transfer, remove, leave, revoke) lock it FOR UPDATE;
writes that only add to a team (a push, an invite, a join) hold it FOR KEY SHARE, so any number
of them run side by side, a deletion waits for them, and they find no team once it is gone
(instead of failing at commit on the foreign key, or deadlocking against the deletion).
"""

import re
import secrets
from collections.abc import Callable

from celery import current_app
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import DISPLAY_MAX_LENGTH, User
from accounts.services import api_token_create
from core.errors import BadRequest, Conflict, Forbidden, Gone, HubError, NotFound
from teams.models import (
    INVITE_LABEL_MAX_LENGTH,
    INVITE_LIFETIME,
    TEAM_NAME_PATTERN,
    Invite,
    Membership,
    Team,
    TeamEvent,
    invite_code_hash,
)

INVITE_GONE = "invite expired or already consumed"
# The name of the personal token minted for someone who joins from the command line.
JOIN_TOKEN_NAME = "ltm join"
# The Celery task that mails an invite (teams.tasks.send_invite_mail), enqueued by name.
SEND_INVITE_MAIL_TASK = "teams.tasks.send_invite_mail"


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


NOT_A_MANAGER = "only the team owner or an admin can do this"


def _require_owner(*, actor, team) -> Membership:
    membership = _require_member(actor=actor, team=team)
    if membership.role != Membership.OWNER:
        raise Forbidden("only the team owner can do this")
    return membership


def _require_manager(*, actor, team) -> Membership:
    """The owner or an admin."""
    membership = _require_member(actor=actor, team=team)
    if membership.role not in Membership.MANAGERS:
        raise Forbidden(NOT_A_MANAGER)
    return membership


def team_event_record(*, team_id: str, actor, kind: str, **detail) -> TeamEvent:
    """Append a line to the team's activity log (inside the caller's transaction). `actor` may be
    None (nobody in particular); their name is kept for when the person is gone."""
    return TeamEvent.objects.create(
        team_id=team_id,
        actor=actor,
        actor_name=actor.display_name if actor is not None else "",
        kind=kind,
        detail=detail,
    )


def _person(user) -> dict:
    """How an event names the person it is about: id and the name they had then."""
    return {"user_id": user.pk, "name": user.display_name}


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


def _member_of(team, user_id) -> Membership:
    if not isinstance(user_id, str) or not user_id:
        raise BadRequest("user_id must be a member's id (a string)")
    membership = Membership.objects.filter(team=team, user_id=user_id).select_related("user").first()
    if membership is None:
        raise NotFound("member not found")
    return membership


def _forget_offer_to(team, user_id) -> None:
    """Someone leaving the team can no longer take it over."""
    if team.transfer_to_id == user_id:
        team.transfer_to, team.transfer_offered_at = None, None
        team.save(update_fields=["transfer_to", "transfer_offered_at"])


def membership_removal_refusal(*, actor_role: str, member_role: str) -> HubError | None:
    """Why someone of `actor_role` may not remove a member of `member_role` (None: they may). The
    owner removes anyone but themselves; an admin removes plain members. The service and the
    team page's Remove buttons both ask this."""
    if actor_role not in Membership.MANAGERS:
        return Forbidden(NOT_A_MANAGER)
    if member_role == Membership.OWNER:
        return BadRequest("the owner cannot be removed; transfer ownership or delete the team")
    if member_role == Membership.ADMIN and actor_role != Membership.OWNER:
        return Forbidden("only the team owner can remove an admin")
    return None


@transaction.atomic
def membership_remove(*, actor, team, user_id: str) -> None:
    team = _locked(team)
    mine = _require_manager(actor=actor, team=team)
    membership = _member_of(team, user_id)
    refusal = membership_removal_refusal(actor_role=mine.role, member_role=membership.role)
    if refusal:
        raise refusal
    membership.delete()
    _forget_offer_to(team, membership.user_id)
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.MEMBER_REMOVED, **_person(membership.user))


@transaction.atomic
def team_leave(*, actor, team) -> None:
    team = _locked(team)
    membership = _require_member(actor=actor, team=team)
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner cannot leave the team; transfer ownership or delete the team")
    membership.delete()
    _forget_offer_to(team, actor.pk)
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.MEMBER_LEFT, **_person(actor))


ASSIGNABLE_ROLES = (Membership.ADMIN, Membership.MEMBER)


@transaction.atomic
def membership_set_role(*, actor, team, user_id: str, role) -> Membership:
    """The owner makes a member an admin (or an admin a plain member again). Ownership changes
    hands only by an accepted transfer."""
    team = _locked(team)
    _require_owner(actor=actor, team=team)
    if role not in ASSIGNABLE_ROLES:
        raise BadRequest('role must be "admin" or "member" (ownership is transferred, not assigned)')
    membership = _member_of(team, user_id)
    if membership.role == Membership.OWNER:
        raise BadRequest("the owner's role cannot change; transfer ownership instead")
    if membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
        kind = TeamEvent.MEMBER_PROMOTED if role == Membership.ADMIN else TeamEvent.MEMBER_DEMOTED
        team_event_record(team_id=team.pk, actor=actor, kind=kind, role=role, **_person(membership.user))
    return membership


@transaction.atomic
def team_transfer_offer(*, actor, team, new_owner_id: str) -> Team:
    """The owner offers the team to another member; nothing changes until they accept. A new
    offer replaces the pending one."""
    team = _locked(team)
    _require_owner(actor=actor, team=team)
    new = _member_of(team, new_owner_id)
    if new.user_id == actor.pk:
        raise BadRequest("you already own this team")
    team.transfer_to, team.transfer_offered_at = new.user, timezone.now()
    team.save(update_fields=["transfer_to", "transfer_offered_at"])
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.OWNERSHIP_OFFERED, **_person(new.user))
    return team


@transaction.atomic
def team_transfer_cancel(*, actor, team) -> None:
    """The owner withdraws the pending offer, or the member it was made to declines it."""
    team = _locked(team)
    membership = _require_member(actor=actor, team=team)
    if team.transfer_to_id is None:
        raise NotFound("no ownership transfer is pending")
    if membership.role != Membership.OWNER and team.transfer_to_id != actor.pk:
        raise Forbidden("only the team owner or the member it was offered to can cancel the transfer")
    team.transfer_to, team.transfer_offered_at = None, None
    team.save(update_fields=["transfer_to", "transfer_offered_at"])


@transaction.atomic
def team_transfer_accept(*, actor, team) -> Team:
    """The member the team was offered to takes it: they become the owner, the previous owner an
    admin."""
    team = _locked(team)
    new = _require_member(actor=actor, team=team)
    if team.transfer_to_id is None:
        raise NotFound("no ownership transfer is pending")
    if team.transfer_to_id != actor.pk:
        raise Forbidden("the ownership of this team was offered to someone else")
    old = Membership.objects.select_related("user").get(team=team, role=Membership.OWNER)
    old.role, new.role = Membership.ADMIN, Membership.OWNER
    old.save(update_fields=["role"])
    new.save(update_fields=["role"])
    team.owner_id, team.transfer_to, team.transfer_offered_at = new.user_id, None, None
    team.save(update_fields=["owner", "transfer_to", "transfer_offered_at"])
    team_event_record(
        team_id=team.pk,
        actor=actor,
        kind=TeamEvent.OWNERSHIP_TRANSFERRED,
        from_user_id=old.user_id,
        from_name=old.user.display_name,
        **_person(actor),
    )
    return team


# Invites


def _email_of(email) -> str:
    if email in (None, ""):
        return ""
    if not isinstance(email, str):
        raise BadRequest("email must be a string")
    email = email.strip()
    try:
        validate_email(email)
    except ValidationError:
        raise BadRequest(f"not an e-mail address: {email[:100]!r}") from None
    return email


def _one_line(value, *, field: str, max_length: int) -> str:
    """A short text for people (a display name, an invite's label): whitespace collapsed, nothing
    unprintable (control, formatting or bidi characters), as accounts.services.display_name_clean."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadRequest(f"{field} must be a string")
    value = " ".join(value.split())
    if not value.isprintable():
        raise BadRequest(f"{field} may not contain control or formatting characters")
    if len(value) > max_length:
        raise BadRequest(f"{field} is at most {max_length} characters")
    return value


def _mail_after_commit(invite: Invite, url: str) -> None:
    """Queue the invite's mail once the invite is committed (a worker must find it). A broker that
    is away is not retried here and does not fail the request: the invite stands, the page shows
    it was not mailed yet, and Resend sends it later (the failure is logged).

    The task is named, not imported: teams.tasks calls these services, so services never import
    it back (teams.apps loads the task module in every process, so eager mode still runs it)."""
    mail = current_app.signature(SEND_INVITE_MAIL_TASK, args=(invite.pk, url))
    transaction.on_commit(lambda: mail.apply_async(retry=False), robust=True)


@transaction.atomic
def invite_create(
    *, actor, team, email=None, label=None, link: Callable[[str], str] | None = None
) -> tuple[Invite, str]:
    """Mint an invite. Returns the row and the code, which is never stored.

    Any member may mint a bare link (optionally labelled, to tell pending links apart). Sending
    it by mail to `email` is for the owner and admins; `link(code)` gives the URL the mail carries,
    and a Celery task sends it after commit."""
    team_hold(team_id=team.pk)
    email, label = _email_of(email), _one_line(label, field="label", max_length=INVITE_LABEL_MAX_LENGTH)
    if email:
        _require_manager(actor=actor, team=team)
        if link is None:
            raise ValueError("an invite by e-mail needs link(code) to build the URL it mails")
    else:
        _require_member(actor=actor, team=team)
    code = new_invite_code()
    now = timezone.now()
    invite = Invite.objects.create(
        team=team,
        code_hash=invite_code_hash(code),
        created_by=actor,
        created_at=now,
        expires_at=now + INVITE_LIFETIME,
        email=email,
        label=label,
    )
    team_event_record(
        team_id=team.pk, actor=actor, kind=TeamEvent.INVITE_CREATED, invite_id=invite.pk, email=email, label=label
    )
    if email:
        _mail_after_commit(invite, link(code))
    return invite, code


def _invite_of(team, invite_id) -> Invite:
    invite = Invite.objects.filter(pk=invite_id, team=team).first()
    if invite is None:
        raise NotFound("invite not found")
    return invite


@transaction.atomic
def invite_revoke(*, actor, team, invite_id: str) -> Invite:
    """The owner or an admin revokes an unused invite; revoking it again changes nothing."""
    team = _locked(team)
    _require_manager(actor=actor, team=team)
    now = timezone.now()
    revoked = Invite.objects.filter(pk=invite_id, team=team, used_at__isnull=True, revoked_at__isnull=True).update(
        revoked_at=now
    )
    invite = _invite_of(team, invite_id)
    if invite.used_at is not None:
        raise Conflict("this invite was already used; remove the member instead")
    if revoked:
        team_event_record(
            team_id=team.pk,
            actor=actor,
            kind=TeamEvent.INVITE_REVOKED,
            invite_id=invite.pk,
            email=invite.email,
            label=invite.label,
        )
    return invite


@transaction.atomic
def invite_resend(*, actor, team, invite_id: str, link: Callable[[str], str]) -> Invite:
    """Mail a pending e-mail invite again (owner or admin). Only the code's hash is stored, so
    the new mail carries a fresh code: the previous mail's link stops working, and the invite
    keeps its expiry (7 days from when it was first made) and stays single-use."""
    team = _locked(team)
    _require_manager(actor=actor, team=team)
    invite = _invite_of(team, invite_id)
    if invite.used_at is not None:
        raise Conflict("this invite was already used")
    if not invite.is_usable():
        raise Gone(INVITE_GONE)
    if not invite.email:
        raise BadRequest("this invite has no e-mail address; make a new invite to send one")
    code = new_invite_code()
    invite.code_hash = invite_code_hash(code)
    invite.save(update_fields=["code_hash"])
    team_event_record(
        team_id=team.pk, actor=actor, kind=TeamEvent.INVITE_RESENT, invite_id=invite.pk, email=invite.email
    )
    _mail_after_commit(invite, link(code))
    return invite


def invite_mailed(*, invite_id: str, code: str) -> Invite | None:
    """The invite a queued mail is about, if that mail should still go out: still usable and still
    behind the same code (a resend replaces the code). Marks it mailed."""
    invite = (
        Invite.objects.usable()
        .select_related("team", "created_by")
        .filter(pk=invite_id, code_hash=invite_code_hash(code))
        .first()
    )
    if invite is not None:
        Invite.objects.filter(pk=invite.pk).update(mailed_at=timezone.now())
    return invite


def _claim(*, code_hash: str, now) -> Invite:
    """Spend the invite with one conditional UPDATE: among concurrent accepts exactly one sees
    a row updated; the others (and any used, revoked, expired or unknown code) get 410."""
    claimed = Invite.objects.usable(now).filter(code_hash=code_hash).update(used_at=now)
    if claimed != 1:
        raise Gone(INVITE_GONE)
    return Invite.objects.select_related("team").get(code_hash=code_hash)


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
    display = _one_line(display, field="display", max_length=DISPLAY_MAX_LENGTH)
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
        _joined(invite, actor)
        return actor, invite.team, None

    invite = _claim(code_hash=code_hash, now=now)
    user = _new_joiner(display)
    _, plaintext = api_token_create(actor=user, name=JOIN_TOKEN_NAME)
    Membership.objects.create(team=invite.team, user=user, role=Membership.MEMBER)
    _joined(invite, user)
    return user, invite.team, plaintext


def _joined(invite: Invite, user) -> None:
    Invite.objects.filter(pk=invite.pk).update(used_by=user)
    about = {"invite_id": invite.pk, "email": invite.email, "label": invite.label}
    team_event_record(team_id=invite.team_id, actor=user, kind=TeamEvent.INVITE_ACCEPTED, **about)
    team_event_record(team_id=invite.team_id, actor=user, kind=TeamEvent.MEMBER_JOINED, **_person(user))
