"""Invites: single-use links into a team, valid for 7 days. Any member mints a bare link; the
owner and admins also mail one to an address, revoke it or mail it again. Accepting one spends it
with a single conditional UPDATE, and makes an account for someone who joins from the command
line without one. Minting an invite and joining only add to a team, so they hold its row
(`team_hold`); revoking and resending lock it (`team_locked`)."""

import secrets
from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import DISPLAY_MAX_LENGTH, User
from accounts.services import api_token_create
from core.errors import BadRequest, Conflict, Gone, NotFound
from core.outbox import queue_after_commit
from teams.events import person_detail, team_event_record
from teams.models import INVITE_LABEL_MAX_LENGTH, INVITE_LIFETIME, Invite, Membership, TeamEvent, invite_code_hash
from teams.services.guards import membership_of, require_manager, require_member, team_hold, team_locked

INVITE_GONE = "invite expired or already consumed"
# The name of the personal token minted for someone who joins from the command line.
JOIN_TOKEN_NAME = "ltm join"
# The Celery task that mails an invite (teams.tasks.send_invite_mail), enqueued by name.
SEND_INVITE_MAIL_TASK = "teams.tasks.send_invite_mail"
# Where the code goes in an invite's link as the outbox keeps it (_mail_after_commit).
CODE_IN_LINK = "{code}"


def new_invite_code() -> str:
    # 24 random bytes = 192 bits, as 48 hex characters (the reference's shape; URL-safe and
    # never starting with "-").
    return secrets.token_hex(24)


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


def _mail_after_commit(invite: Invite, code: str, link: Callable[[str], str]) -> None:
    """Queue the invite's mail once the invite is committed (a worker must find it), through the
    outbox (core.outbox), so that a process dying in between does not lose it. A broker that is
    away does not fail the request: the invite stands, the page shows it was not mailed yet, and
    the outbox's sweep (or Resend) sends it later (the failure is logged).

    The link carries the code, which the database never keeps: the outbox keeps the link with
    CODE_IN_LINK in its place, and a mail that only the sweep sends carries a new code
    (invite_code_renew). The task is named, not imported: teams.tasks calls these services, so
    services never import it back (teams.apps loads the task module in every process, so eager
    mode still runs it)."""
    url = link(code)
    stored = ((invite.pk, url.replace(code, CODE_IN_LINK)), {"new_code": True})
    queue_after_commit(SEND_INVITE_MAIL_TASK, args=(invite.pk, url), stored=stored)


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
        require_manager(actor=actor, team=team)
        if link is None:
            raise ValueError("an invite by e-mail needs link(code) to build the URL it mails")
    else:
        require_member(actor=actor, team=team)
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
        _mail_after_commit(invite, code, link)
    return invite, code


def _invite_of(team, invite_id) -> Invite:
    invite = Invite.objects.filter(pk=invite_id, team=team).first()
    if invite is None:
        raise NotFound("invite not found")
    return invite


@transaction.atomic
def invite_revoke(*, actor, team, invite_id: str) -> Invite:
    """The owner or an admin revokes an unused invite; revoking it again changes nothing."""
    team = team_locked(team)
    require_manager(actor=actor, team=team)
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
    team = team_locked(team)
    require_manager(actor=actor, team=team)
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
    _mail_after_commit(invite, code, link)
    return invite


def invite_code_renew(*, invite_id: str) -> str | None:
    """A new code for an invite whose mail only the outbox's sweep sends (the link with the code
    was never kept, see _mail_after_commit); None when the invite is no longer usable or has no
    address. Any earlier code stops working, as with a resend."""
    code = new_invite_code()
    renewed = Invite.objects.usable().filter(pk=invite_id).exclude(email="").update(code_hash=invite_code_hash(code))
    return code if renewed else None


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
        if membership_of(person=actor, team=invite.team) is not None:
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
    team_event_record(team_id=invite.team_id, actor=user, kind=TeamEvent.MEMBER_JOINED, **person_detail(user))
