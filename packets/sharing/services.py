"""Sharing a packet with a person by name: share, withdraw or dismiss, a share seen, and the end
of shares whose sender no longer may share (packets.models: SHARE says who may share, READ lets the
recipient read). Each change is one transaction; a team packet's shares are lines of the team's
activity log. The reads are packets.sharing.selectors.

Every surface (the wire API, the dashboard, /mcp and `ltm mcp` through it) calls these."""

import math
from collections.abc import Callable

from allauth.core import ratelimit
from allauth.core.internal.ratelimit import get_rates
from django.db import transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from core.errors import BadRequest, Forbidden, NotFound, TooManyRequests
from core.links import external_url
from core.outbox import queue_after_commit
from packets.models import SHARE_NOTE_MAX_LENGTH, Packet, Share
from packets.scan.findings import quarantine_refusal
from packets.sharing import remote
from packets.signals import packets_changed
from teams.events import packet_detail, person_detail, team_event_record
from teams.models import TeamEvent
from teams.services import team_hold

# The mail task keeps the name it was first declared under: rows of the outbox (core.outbox) name it.
SEND_SHARE_MAIL_TASK = "packets.tasks.send_share_mail"
NO_SUCH_USER = "no such user"
SHARE_REFUSED = "only the packet's creator can share a personal packet, and only its team's members a team packet"


def _note(note) -> str:
    if note is None:
        return ""
    if not isinstance(note, str):
        raise BadRequest("note must be a string")
    note = note.strip()
    if len(note) > SHARE_NOTE_MAX_LENGTH:
        raise BadRequest(f"note is at most {SHARE_NOTE_MAX_LENGTH} characters; got {len(note)}")
    return note


def _recipient(*, actor, to) -> User:
    """The active person named `to` (letter case aside, as sign-in reads it), for `actor` to share
    with: the one place a person is looked up by name. Whether the name is known shows in the
    answer (404), so every attempt counts against the sender's limit before the lookup, known or
    not, and the lookup is the same one query either way: a sender learns at most one name per
    counted attempt, and nothing from how long the answer took."""
    if not isinstance(to, str) or not to.strip():
        raise BadRequest("to is required: the username of the person to share with")
    _count_against_limit(actor)
    return person_named(to.strip())


def person_named(name: str) -> User:
    """The active person called `name`, letter case aside unless two differ only by it; 404 "no
    such user" otherwise (a share here, and one from another hub: federation.inbox)."""
    found = list(User.objects.filter(username__iexact=name, is_active=True)[:2])
    exact = [user for user in found if user.username == name]
    if len(exact) == 1 or len(found) == 1:
        return (exact or found)[0]
    raise NotFound(NO_SUCH_USER)


def _hold(packet_id: str) -> None:
    """Hold the packet's team, then the packet, until the share commits (PostgreSQL; SQLite runs
    one writer at a time). What ends shares then comes wholly before the share, which sees it, or
    after it, and ends it too: the packet's delete (else the share's foreign key fails at commit,
    a 500) or move, and, under the team's lock (teams.services.team_locked), the team's delete, a
    member leaving or removed, share_outside turned off (else the share outlives them). The team
    first, in the order a team's delete takes them."""
    team_id = Packet.objects.filter(pk=packet_id).values_list("team_id", flat=True).first()
    try:
        if team_id is not None:
            team_hold(team_id=team_id)
        packet = Packet.objects.select_for_update(no_key=True).filter(pk=packet_id).only("team_id").first()
        if packet is not None and packet.team_id not in (None, team_id):
            team_hold(team_id=packet.team_id)  # moved into another team meanwhile: that one too
    except NotFound:  # the team went, and its packets with it
        raise NotFound("packet not found") from None


def _shareable(*, actor, packet_id: str) -> Packet:
    """The packet if `actor` may share it (SHARE), held (see _hold). Someone who may read it but
    not share it gets 403 saying why; anyone else 404, as for a pull."""
    _hold(packet_id)
    packet = Packet.objects.shareable_by(actor).filter(pk=packet_id).select_related("team").first()
    if packet is not None and packet.quarantined:
        raise quarantine_refusal(packet, "shared")
    if packet is not None:
        return packet
    readable = Packet.objects.visible_to(actor).filter(pk=packet_id).select_related("team").first()
    if readable is None:
        raise NotFound("packet not found")
    if (
        readable.team is not None
        and not readable.team.share_outside
        and readable.team.memberships.filter(user_id=actor.pk).exists()
    ):
        raise Forbidden(
            f"team {readable.team.name} does not allow sharing its packets outside it "
            "(the team setting share_outside; its owner or an admin can turn it on)"
        )
    raise Forbidden(SHARE_REFUSED)


def _count_against_limit(actor) -> None:
    """Names a sender tries to share with are limited (ACCOUNT_RATE_LIMITS["packet_share"], per
    person, counted in the cache every web process shares). Past it, 429 with Retry-After: the
    length of the limit's window, the longest a count stays in it."""
    if not ratelimit.consume(HttpRequest(), action="packet_share", user=actor):
        window = max(rate.duration for rate in get_rates(app="allauth.account", action="packet_share"))
        raise TooManyRequests(
            "too many shares in the last hour; wait a while, then share again", retry_after=math.ceil(window)
        )


def packet_page_link(request) -> Callable[[str], str]:
    """How a packet's id becomes the link a share's mail carries: the packet's page on this hub
    (LTM_EXTERNAL_URL when set, else the host the request came to)."""
    return lambda packet_id: external_url(request, reverse("packet-detail", args=[packet_id]))


@transaction.atomic
def share_create(
    *, actor, packet_id: str, to, note=None, link: Callable[[str], str] | None = None
) -> tuple[Share, bool]:
    """Share the packet with the person named `to`; (share, created). Sharing it again with the
    same person keeps the one share and updates its note (a new note shows as unseen again).
    `link(packet_id)` is the URL the recipient's mail carries (see packet_page_link); without
    it the mail links to LTM_EXTERNAL_URL's page of the packet, or to none."""
    note = _note(note)
    packet = _shareable(actor=actor, packet_id=packet_id)
    recipient = _recipient(actor=actor, to=to)
    if recipient.pk == actor.pk:
        raise BadRequest("you cannot share a packet with yourself")
    share, created = Share.objects.get_or_create(
        packet=packet, sender=actor, recipient=recipient, defaults={"note": note}
    )
    if created:
        _log(actor=actor, kind=TeamEvent.PACKET_SHARED, share=share)
        packets_changed.send(sender=Packet, actor=actor, lines=[(TeamEvent.PACKET_SHARED, packet.team_id, packet)])
        share_mail_after_commit(share, link(packet.pk) if link else None)
    elif share.note != note:
        share.note, share.seen_at = note, None
        share.save(update_fields=["note", "seen_at"])
    return share, created


def shares_remote(to) -> bool:
    """Whether `to` names a person on another hub (username@host) rather than one of this hub."""
    return remote.is_remote(to) and not User.objects.filter(username=to.strip(), is_active=True).exists()


@transaction.atomic
def share_remote_create(*, actor, packet_id: str, to: str, note=None):
    """Share the packet with a person on another hub: the same rules as a share here (SHARE, the
    team's share_outside, quarantine, the limit), then federation's (packets.sharing.remote),
    which sends it after the commit; the remote share, pending until the other hub answers."""
    note = _note(note)
    packet = _shareable(actor=actor, packet_id=packet_id)
    _count_against_limit(actor)
    return remote.registry.remote.share(actor=actor, packet=packet, address=to.strip(), note=note)


def _log(*, actor, kind: str, share: Share, team_id=None) -> None:
    """A line in the log of the packet's team (or of `team_id`, the team a packet just left)."""
    team_id = team_id or share.packet.team_id
    if team_id is not None:
        detail = {**packet_detail(share.packet), **person_detail(share.recipient)}
        team_event_record(team_id=team_id, actor=actor, kind=kind, **detail)


def share_mail_after_commit(share: Share, url: str | None = None) -> None:
    """Queue the recipient's mail once the share is committed (a worker must find it), through the
    outbox (core.outbox), which a process dying in between does not lose. A broker that is away
    does not fail the share (the outbox's sweep sends it later); the inbox shows it anyway. The
    task is named, not imported: packets.sharing.tasks imports this module. A new share here, and
    one from another hub (federation.inbox)."""
    queue_after_commit(SEND_SHARE_MAIL_TASK, args=(share.pk, url))


@transaction.atomic
def share_delete(*, actor, share_id: str) -> None:
    """The sender withdraws the share, or the recipient dismisses it; anyone else gets 404. The
    recipient's next request no longer reads the packet (unless another right lets them)."""
    if remote.registry.remote is not None and remote.registry.remote.withdraw(actor=actor, share_id=share_id):
        return  # a share with someone on another hub, withdrawn there too
    share = _share_of(actor=actor, share_id=share_id)
    share.delete()
    _log(actor=actor, kind=TeamEvent.PACKET_UNSHARED, share=share)


def _share_of(*, actor, share_id) -> Share:
    # Locked, so that a withdraw and a dismiss at once end (and log) the share once.
    shares = Share.objects.select_for_update(of=("self",)).select_related("packet", "recipient")
    share = shares.filter(pk=share_id).first()
    if share is None or actor.pk not in (share.sender_id, share.recipient_id):
        raise NotFound("share not found")
    return share


@transaction.atomic
def shares_prune(*, team_id=None, packet_ids=(), actor=None, left_team_id=None, **_signal) -> int:
    """End the shares of the team's packets (or of `packet_ids`) whose sender no longer may share
    them (SHARE): they left the team, the team stopped sharing outside it, or the packet moved.
    Connected to teams' `sharing_narrowed` signal. Returns how many ended."""
    shares = Share.objects.filter(packet__team_id=team_id) if team_id is not None else Share.objects.none()
    if packet_ids:
        shares = shares | Share.objects.filter(packet_id__in=packet_ids)
    ended = 0
    for sender in User.objects.filter(pk__in=shares.values("sender_id")):
        dead = shares.filter(sender=sender).exclude(packet__in=Packet.objects.shareable_by(sender))
        for share in dead.select_related("packet", "recipient"):
            share.delete()
            _log(actor=actor, kind=TeamEvent.PACKET_UNSHARED, share=share, team_id=left_team_id)
            ended += 1
    return ended


def share_mark_seen(*, viewer, packet_id: str) -> None:
    """The viewer read the packet: the shares of it with them are seen."""
    Share.objects.filter(packet_id=packet_id, recipient_id=viewer.pk, seen_at__isnull=True).update(
        seen_at=timezone.now()
    )
