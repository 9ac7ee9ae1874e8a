"""Publishing a packet: its public page, given and taken down. Each is one conditional statement
over the packets the actor may change (CHANGE) and, for a team packet, a line of the team's
activity log in the same transaction (packets.services.changed_and_logged)."""

import secrets

from django.utils import timezone

from packets.models import Packet, changeable_sql
from packets.scan.findings import quarantine_refusal
from packets.services import PACKETS, changed_and_logged, refuse_change
from teams.models import TeamEvent


def _new_public_slug() -> str:
    """24 URL-safe characters (144 random bits): the page's URL cannot be guessed."""
    return secrets.token_urlsafe(18)


def packet_publish(*, actor, packet_id: str) -> Packet:
    """Give the packet a public page (same rights as delete). Publishing a published packet
    keeps its slug, so the URL already shared stays the same (and writes no log line). A packet
    the secret scan quarantined is refused (409, naming the findings); quarantine took down any
    page it had, so publishing once it ends makes a new URL."""
    now = timezone.now()
    may_change, params = changeable_sql(PACKETS, actor)
    published = changed_and_logged(
        f"UPDATE {PACKETS} SET public_slug = COALESCE(public_slug, %s), published_at = COALESCE(published_at, %s) "
        f"WHERE id = %s AND NOT quarantined AND {may_change} "
        "RETURNING id, team_id, owner_id, goal, quarantined, public_slug, published_at, published_at = %s AS fresh",
        [_new_public_slug(), now, packet_id, *params, now],
        actor=actor,
        kind=TeamEvent.PACKET_PUBLISHED,
        fresh_only=True,
    )
    if not published:
        held = Packet.objects.changeable_by(actor).filter(pk=packet_id, quarantined=True).first()
        if held is not None:
            raise quarantine_refusal(held, "published")
        refuse_change(actor=actor, packet_id=packet_id)
    return published[0]


def packet_unpublish(*, actor, packet_id: str) -> None:
    """Take the public page down. The slug is forgotten: a later publish mints a new URL and
    the old one, wherever it leaked, stays dead. Unpublishing what is not published does nothing."""
    may_change, params = changeable_sql(PACKETS, actor)
    unpublished = changed_and_logged(
        f"UPDATE {PACKETS} SET public_slug = NULL, published_at = NULL "
        f"WHERE id = %s AND public_slug IS NOT NULL AND {may_change} RETURNING id, team_id, owner_id, goal, quarantined",
        [packet_id, *params],
        actor=actor,
        kind=TeamEvent.PACKET_UNPUBLISHED,
    )
    if not unpublished and not Packet.objects.changeable_by(actor).filter(pk=packet_id).exists():
        refuse_change(actor=actor, packet_id=packet_id)
