"""Reads of shares, scoped by the viewer: the inbox and what the viewer shared, who shared a
packet with them, and the share a mail is about."""

from django.db.models import Prefetch

from packets.models import Packet, Share
from packets.sharing import remote

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
IN, OUT = "in", "out"


def shares_list(*, viewer, direction: str = IN, limit: int = DEFAULT_LIMIT) -> list[Share]:
    """What was shared with the viewer (IN, the inbox) or by them (OUT), newest first; a packet the
    secret scan holds back from the viewer held out (packets.models.held_out)."""
    mine = {"recipient_id": viewer.pk} if direction == IN else {"sender_id": viewer.pk}
    shares = Share.objects.filter(**mine).select_related("sender", "recipient")
    shares = shares.prefetch_related(Prefetch("packet", queryset=Packet.objects.with_held(viewer)))
    listed = list(shares.order_by("-created_at", "-id")[:limit])
    if direction == OUT and remote.registry.remote is not None:
        # Shares with people on other hubs, among the others by date.
        listed += remote.registry.remote.shares_sent(viewer=viewer, limit=limit)
        listed = sorted(listed, key=lambda share: (share.created_at, share.id), reverse=True)[:limit]
    return listed


def shares_unseen_count(*, viewer) -> int:
    return Share.objects.filter(recipient_id=viewer.pk, seen_at__isnull=True).count()


def shared_by(*, viewer, packet_ids) -> dict[str, str]:
    """Who shared each of these packets with the viewer (the latest sender's name), by packet id;
    packets not shared with the viewer are absent."""
    senders = {}
    shares = Share.objects.filter(recipient_id=viewer.pk, packet_id__in=list(packet_ids)).select_related("sender")
    for share in shares.order_by("created_at", "id"):
        senders[share.packet_id] = share.sender.display_name
    return senders


def shares_received(*, viewer, packet_id: str) -> list[Share]:
    """Who shared this packet with the viewer, and with what note, oldest first (its page says so)."""
    shares = Share.objects.filter(recipient_id=viewer.pk, packet_id=packet_id).select_related("sender")
    return list(shares.order_by("created_at", "id"))


def share_for_mail(*, share_id: str) -> Share | None:
    """The share a mail is about, if it still stands and its recipient wants share mails (the
    task asks when it runs, not when it was queued, and looks for a verified address itself)."""
    share = Share.objects.select_related("sender", "recipient").filter(pk=share_id).first()
    if share is None or not share.recipient.share_mail:
        return None
    # Quarantined since it was shared: the mail names it as the recipient may read it (held out).
    packet = Packet.objects.with_held(share.recipient).filter(pk=share.packet_id).first()
    if packet is None:  # deleted meanwhile, and the share with it
        return None
    share.packet = packet
    return share
