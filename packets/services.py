"""Changes to packets; each function is one transaction."""

import re
import secrets
from datetime import UTC

from django.db import IntegrityError, transaction
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from core.errors import BadRequest, Conflict, Forbidden, NotFound
from ltm.protocol.packet import canonical_json, parse_timestamp
from packets.models import Packet
from packets.selectors import packet_viewer_rights, packets_visible_to
from teams.models import Team
from teams.selectors import is_member
from teams.services import team_hold


def _columns(packet: dict) -> dict:
    """The stored columns of a validated packet."""
    return {
        "ltm_version": packet["ltm_version"],
        # The instant in UTC (PostgreSQL refuses offsets past ±15:59); the body keeps the
        # packet's own text.
        "created_at": parse_timestamp(packet["created_at"]).astimezone(UTC),
        "goal": packet["goal"],
        "next_step": packet["next_step"],
        "parent_id": packet.get("parent_id", ""),
        "project": (packet.get("project") or {}).get("name", ""),
        "tags": " " + " ".join(packet.get("tags", [])) + " " if packet.get("tags") else "",
        "body": canonical_json(packet),
    }


# Ids the hub's URLs can always address: letters, digits, "-" and "_" (ULIDs and UUIDs among
# them), never starting with "-" (the client would read it as an option). The schema bounds the
# length (10 to 64).
PACKET_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
PACKET_ID_RULE = (
    "a packet id is letters, digits, '-' and '_', starting with a letter or digit "
    "(a ULID or a UUID works)"
)


@transaction.atomic
def packet_push(*, actor, packet: dict, team=None) -> tuple[Packet, bool]:
    """Store a validated packet in the actor's personal scope or in `team`.

    A re-push by the packet's creator into the same scope replaces it; a re-push into another
    scope is refused (moving is packet_move), and so is an id that belongs to someone else,
    without revealing anything about that packet.
    Returns (packet, created).
    """
    if not PACKET_ID.fullmatch(packet["id"]):
        raise BadRequest(f"{PACKET_ID_RULE}; got {packet['id'][:64]!r}")
    if team is not None:
        team_hold(team_id=team.pk)  # the team row first, as every team-wide change locks it
    columns = _columns(packet)
    existing = Packet.objects.select_for_update().filter(pk=packet["id"]).first()
    if existing is None:
        try:
            with transaction.atomic():
                return Packet.objects.create(id=packet["id"], owner=actor, team=team, **columns), True
        except IntegrityError:  # a concurrent push of the same id won the race
            existing = Packet.objects.select_for_update().get(pk=packet["id"])
    if existing.owner_id != actor.pk:
        raise Conflict(f"packet id {packet['id']} is already taken on this hub; give your packet a new id")
    if existing.team_id != (team.pk if team else None):
        # A re-push into another scope would silently take a packet away from a team (or hand a
        # personal one to it): moving is a deliberate act, on the dashboard.
        raise Conflict(
            f"packet {existing.pk} is {_scope_phrase(existing.team)}; push it there, or move it on "
            "the hub's packet page"
        )
    for name, value in columns.items():
        setattr(existing, name, value)
    existing.save()
    return existing, False


def _scope_phrase(team) -> str:
    if team is None:
        return "one of your personal packets (ltm push without -t)"
    return f"in team {team.name} (ltm push -t {team.name})"


def _packet_locked_for(*, actor, packet_id: str, right: str, refusal: str) -> Packet:
    """The packet, locked, if `actor` has `right` on it ("change": delete and publish; "move"; see
    packets.selectors.packet_viewer_rights, which the packet's page uses for its buttons).
    Someone who can see the packet but lacks the right gets 403 `refusal`; anyone else 404."""
    packet = (
        Packet.objects.select_for_update(of=("self",))
        .select_related("team")
        .filter(pk=packet_id)
        .first()
    )
    if packet is None:
        raise NotFound("packet not found")
    if packet_viewer_rights(viewer=actor, packet=packet)[right]:
        return packet
    if packets_visible_to(actor).filter(pk=packet_id).exists():
        raise Forbidden(refusal)
    raise NotFound("packet not found")


def _packet_for_change(*, actor, packet_id: str) -> Packet:
    return _packet_locked_for(
        actor=actor, packet_id=packet_id, right="change",
        refusal="only the packet's creator or the team owner can do this",
    )


@transaction.atomic
def packet_delete(*, actor, packet_id: str) -> None:
    _packet_for_change(actor=actor, packet_id=packet_id).delete()


@transaction.atomic
def packet_move(*, actor, packet_id: str, team) -> Packet:
    """Move a packet between the creator's personal scope and one of the creator's teams
    (`team=None`: personal). Scope is metadata: the packet's JSON is not touched."""
    if team is not None:
        team_hold(team_id=team.pk)
    packet = _packet_locked_for(
        actor=actor, packet_id=packet_id, right="move", refusal="only the packet's creator can move it"
    )
    if team is not None and not is_member(viewer=actor, team_id=team.pk):
        raise NotFound("team not found")
    packet.team = team
    packet.save(update_fields=["team"])
    return packet


def _new_public_slug() -> str:
    """24 URL-safe characters (144 random bits): the page's URL cannot be guessed."""
    return secrets.token_urlsafe(18)


@transaction.atomic
def packet_publish(*, actor, packet_id: str) -> Packet:
    """Give the packet a public page (same rights as delete). Publishing a published packet
    keeps its slug, so the URL already shared stays the same."""
    packet = _packet_for_change(actor=actor, packet_id=packet_id)
    if packet.public_slug is None:
        packet.public_slug = _new_public_slug()
        packet.published_at = timezone.now()
        packet.save(update_fields=["public_slug", "published_at"])
    return packet


@transaction.atomic
def packet_unpublish(*, actor, packet_id: str) -> Packet:
    """Take the public page down. The slug is forgotten: a later publish mints a new URL and
    the old one, wherever it leaked, stays dead."""
    packet = _packet_for_change(actor=actor, packet_id=packet_id)
    if packet.public_slug is not None:
        packet.public_slug = None
        packet.published_at = None
        packet.save(update_fields=["public_slug", "published_at"])
    return packet


@transaction.atomic
def packets_hand_to_teams(*, user, **_signal) -> int:
    """Before `user` leaves the hub: the packets they pushed to teams stay with those teams, owned
    of record by each team's owner, so leaving does not take shared knowledge away. Connected to
    accounts' `user_deleting` signal. Returns how many packets changed hands."""
    team_owner = Team.objects.filter(pk=OuterRef("team_id")).values("owner_id")[:1]
    return Packet.objects.filter(owner=user, team__isnull=False).update(owner_id=Subquery(team_owner))
