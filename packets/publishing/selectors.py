"""Reads of public pages: the viewer is anyone holding the link, so being published is the scope."""

from django.db.models import Q
from django.urls import reverse

from core.errors import NotFound
from core.links import external_url
from packets.models import Packet


def packet_get_published(*, slug: str) -> Packet:
    # A packet the secret scan holds back has no public page until it is fixed or cleared.
    packet = (
        Packet.objects.select_related("owner").filter(public_slug=slug, quarantined=False).first() if slug else None
    )
    if packet is None:
        raise NotFound("this link is no longer valid")
    return packet


def _published_chain_partners(packet: Packet):
    """Published packets that may appear in `packet`'s chain: the same creator's or the same
    team's. Naming someone else's packet as parent_id does not attach a stranger's page to it."""
    same_scope = Q(owner_id=packet.owner_id)
    if packet.team_id:
        same_scope |= Q(team_id=packet.team_id)
    return Packet.objects.filter(same_scope, public_slug__isnull=False, quarantined=False)


def packet_published_parent(*, packet: Packet) -> Packet | None:
    if not packet.parent_id:
        return None
    return _published_chain_partners(packet).filter(pk=packet.parent_id).first()


def packet_published_children(*, packet: Packet) -> list[Packet]:
    """Published packets that continue `packet`, oldest first."""
    children = _published_chain_partners(packet).filter(parent_id=packet.pk)
    return list(children.order_by("created_at", "id").only("id", "goal", "public_slug", "created_at"))


def public_url(request, packet: Packet) -> str:
    """The absolute URL of a published packet's page."""
    return external_url(request, reverse("packet-public", args=[packet.public_slug]))
