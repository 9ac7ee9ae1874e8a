"""Reads of packets, always scoped by the viewer so nobody sees what they may not."""

from django.db.models import Q

from hub.errors import NotFound
from packets.models import Packet

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def parse_limit(raw) -> int:
    """The contract: not a number, 0 or less, or over 500 falls back to 50."""
    try:
        limit = int(raw)
    except (TypeError, ValueError):
        return DEFAULT_LIMIT
    return limit if 0 < limit <= MAX_LIMIT else DEFAULT_LIMIT


def packets_visible_to(viewer):
    """Personal packets of the viewer and packets of every team the viewer belongs to."""
    return Packet.objects.filter(
        Q(team__isnull=True, owner=viewer) | Q(team__memberships__user=viewer)
    )


def packet_list(*, viewer, team=None, limit: int = DEFAULT_LIMIT):
    """Newest first: the viewer's personal packets, or the packets of `team` (a team the viewer
    is a member of, see teams.selectors.team_get_for_member)."""
    packets = Packet.objects.filter(team=team) if team else Packet.objects.filter(owner=viewer, team__isnull=True)
    return packets.order_by("-created_at", "-id").only("id", "created_at", "goal")[:limit]


def packet_get(*, viewer, packet_id: str) -> Packet:
    packet = packets_visible_to(viewer).filter(pk=packet_id).first()
    if packet is None:
        raise NotFound("packet not found")
    return packet
