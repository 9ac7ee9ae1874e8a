"""Reads of packets, always scoped by the viewer so nobody sees what they may not."""

from django.db.models import Q
from django.urls import reverse

from core.errors import NotFound
from core.links import external_url
from packets import search
from packets.models import Packet
from teams.models import Membership, Team
from teams.selectors import team_get_for_member

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def packets_visible_to(viewer):
    """Personal packets of the viewer and packets of every team the viewer belongs to."""
    return Packet.objects.filter(
        Q(team__isnull=True, owner=viewer) | Q(team__memberships__user=viewer)
    )


def packets_newest_first(*, viewer, team_name: str | None = None, limit: int = DEFAULT_LIMIT):
    """The viewer's personal packets, or those of the team named `team_name` if the viewer is a
    member, newest first, straight off an index (see Packet.Meta.indexes): id, created_at and goal.

    Plain SQL, as every list asks it and the ORM's query building cost more than the query. The
    team is a scalar subquery, so the planner reads that one team's index in order."""
    packets, teams, memberships = Packet._meta.db_table, Team._meta.db_table, Membership._meta.db_table
    newest = "ORDER BY created_at DESC, id DESC LIMIT %s"
    if team_name is None:
        sql = f"SELECT id, created_at, goal FROM {packets} WHERE owner_id = %s AND team_id IS NULL {newest}"
        return Packet.objects.raw(sql, [viewer.pk, limit])
    team = (
        f"SELECT t.id FROM {teams} t JOIN {memberships} m ON m.team_id = t.id "
        "WHERE t.name = %s AND m.user_id = %s"
    )
    sql = f"SELECT id, created_at, goal FROM {packets} WHERE team_id = ({team}) {newest}"
    return Packet.objects.raw(sql, [team_name, viewer.pk, limit])


def packet_list(*, viewer, team_name: str | None = None, limit: int = DEFAULT_LIMIT) -> list[Packet]:
    """The list the wire API answers: one query, plus a second only when a team's list comes out
    empty, to tell a team with no packets from one the viewer is not in (404)."""
    packets = list(packets_newest_first(viewer=viewer, team_name=team_name, limit=limit))
    if not packets and team_name is not None:
        team_get_for_member(viewer=viewer, name=team_name)
    return packets


def packet_get(*, viewer, packet_id: str) -> Packet:
    """The packet if the viewer may read it: their personal packet, or one of a team of theirs.

    One plain SQL statement with the rights in it: every pull asks this, and building the same
    query with the ORM cost more than running it."""
    packets, memberships = Packet._meta.db_table, Membership._meta.db_table
    found = list(Packet.objects.raw(
        f"SELECT id, owner_id, team_id, body, public_slug, published_at FROM {packets} "
        f"WHERE id = %s AND ((team_id IS NULL AND owner_id = %s) "
        f"OR team_id IN (SELECT team_id FROM {memberships} WHERE user_id = %s))",
        [packet_id, viewer.pk, viewer.pk],
    ))
    if not found:
        raise NotFound("packet not found")
    return found[0]


def packet_search(*, viewer, personal: bool = False, team_name: str = "", tag: str = "", project: str = ""):
    """The dashboard's list: what the viewer may see, newest first, narrowed by the filters
    (a search by words is packet_text_search).

    `personal` keeps only the viewer's personal packets; `team_name` only that team's (a team the
    viewer is not in simply yields nothing).
    """
    packets = packets_visible_to(viewer).select_related("team", "owner")
    if personal:
        packets = packets.filter(team__isnull=True)
    elif team_name:
        packets = packets.filter(team__name=team_name)
    if tag:
        # Tags are stored space-padded (" a b "), so a whole-word match is a padded substring.
        packets = packets.filter(tags__contains=f" {tag.strip()} ")
    if project:
        packets = packets.filter(project=project.strip())
    return packets.order_by("-created_at", "-id")


# Public pages: the viewer is anyone holding the link, so being published is the scope.


def packet_get_published(*, slug: str) -> Packet:
    packet = Packet.objects.filter(public_slug=slug).first() if slug else None
    if packet is None:
        raise NotFound("this link is no longer valid")
    return packet


def _published_chain_partners(packet: Packet):
    """Published packets that may appear in `packet`'s chain: the same creator's or the same
    team's. Naming someone else's packet as parent_id does not attach a stranger's page to it."""
    same_scope = Q(owner_id=packet.owner_id)
    if packet.team_id:
        same_scope |= Q(team_id=packet.team_id)
    return Packet.objects.filter(same_scope, public_slug__isnull=False)


def packet_published_parent(*, packet: Packet) -> Packet | None:
    if not packet.parent_id:
        return None
    return _published_chain_partners(packet).filter(pk=packet.parent_id).first()


def packet_published_children(*, packet: Packet) -> list[Packet]:
    """Published packets that continue `packet`, oldest first."""
    children = _published_chain_partners(packet).filter(parent_id=packet.pk)
    return list(children.order_by("created_at", "id").only("id", "goal", "public_slug", "created_at"))


# The dashboard's packet page.


def packet_viewer_rights(*, viewer, packet: Packet) -> dict:
    """What the viewer may do with a packet: "change" (delete, publish) for the creator or the
    team's owner; "move" for the creator only. The packet's page shows its buttons from this, and
    packets.services checks it before every change."""
    is_creator = packet.owner_id == viewer.pk
    owns_team = packet.team is not None and packet.team.owner_id == viewer.pk
    return {"change": is_creator or owns_team, "move": is_creator}


def packet_visible_chain(*, viewer, packet: Packet) -> tuple[Packet | None, list[Packet]]:
    """The packet's parent and children among the packets the viewer may see."""
    visible = packets_visible_to(viewer).only("id", "goal", "created_at")
    parent = visible.filter(pk=packet.parent_id).first() if packet.parent_id else None
    children = list(visible.filter(parent_id=packet.pk).order_by("created_at", "id"))
    return parent, children


def public_url(request, packet: Packet) -> str:
    """The absolute URL of a published packet's page."""
    return external_url(request, reverse("packet-public", args=[packet.public_slug]))


# Full-text search (packets/search.py does the work on either database).

SEARCH_DEFAULT_LIMIT = 20
SEARCH_MAX_LIMIT = 100


def packet_text_search(
    *, viewer, text: str, team_name: str | None = None, personal: bool = False,
    tag: str = "", project: str = "", limit: int = SEARCH_DEFAULT_LIMIT,
) -> list[search.Hit]:
    """The packets the viewer may read that match `text` (web-search syntax), best first: every
    packet the viewer may read, only their personal ones (`personal`), or only the team
    `team_name`'s (404 if the viewer is not in it). A packet id, or 10+ characters that start
    one, puts that packet first."""
    hits = search.search_packets(
        viewer=viewer, text=text, team_name=team_name, personal=personal, tag=tag, project=project, limit=limit,
    )
    if not hits and team_name is not None:
        team_get_for_member(viewer=viewer, name=team_name)
    return hits
