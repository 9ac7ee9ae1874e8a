"""Sharing with people on other hubs: a remote share and the messages that carry it (share,
update, withdraw), each written in the transaction of the change it tells about and sent after
it commits (federation.delivery), never inside the request. packets.sharing reaches these
through its registry (packets.sharing.remote); the packets' own changes through its signals
(federation.receivers)."""

import json

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from core.errors import BadRequest, Forbidden
from core.outbox import queue_after_commit
from federation import keys, peers, sender
from federation.models import FAILED, PENDING, SHARE, UPDATE, WITHDRAW, Message, Received, RemoteShare
from packets.models import Packet

SEND_TASK = "federation.tasks.message_send"


class Remote:
    """What packets.sharing asks of federation (packets.sharing.remote.RemoteSharing)."""

    is_address = staticmethod(peers.is_address)

    @staticmethod
    def share(*, actor, packet, address, note):
        return remote_share_create(actor=actor, packet=packet, address=address, note=note)

    @staticmethod
    def shares_sent(*, viewer, limit):
        shares = RemoteShare.objects.filter(sender=viewer).select_related("sender").order_by("-created_at", "-id")
        shares = list(shares[:limit])
        packets = Packet.objects.with_held(viewer).filter(pk__in=[share.packet_id for share in shares])
        found = {packet.pk: packet for packet in packets}
        for share in shares:
            share.packet = found.get(share.packet_id)
        return [share for share in shares if share.packet is not None]

    @staticmethod
    def withdraw(*, actor, share_id):
        return remote_share_delete(actor=actor, share_id=share_id)

    @staticmethod
    def origin(*, packet_id):
        # Only a packet whose signatures verified is ever stored: each one is verified.
        host = Received.objects.filter(pk=packet_id).values_list("host", flat=True).first()
        return {"hub": host, "verified": True} if host else None


def remote_share_create(*, actor, packet: Packet, address: str, note: str) -> RemoteShare:
    """Share `packet` (which `actor` may share: packets.sharing checked) with `address`, inside the
    caller's transaction; sharing again with the same address sends it again with the new note."""
    username, host = peers.address_parts(address)
    if host == peers.own_host():
        raise BadRequest(f"{address} is on this hub: share with the username alone ({username})")
    peers.allowed(host)
    try:
        keys.signing_key()
    except ImproperlyConfigured as exc:
        raise Forbidden(str(exc)) from None
    share, created = RemoteShare.objects.get_or_create(
        packet_id=packet.pk, sender=actor, address=f"{username}@{host}", defaults={"note": note}
    )
    if not created:
        share.note, share.state, share.reason = note, PENDING, ""
        share.save(update_fields=["note", "state", "reason"])
    message_queue(share=share, kind=SHARE, packet=packet)
    share.packet = packet
    return share


@transaction.atomic
def remote_share_delete(*, actor, share_id: str) -> bool:
    """The sender withdraws a remote share: a withdraw follows what was sent. False when the
    actor has no remote share of that id."""
    share = RemoteShare.objects.select_for_update().filter(pk=share_id, sender=actor).first()
    if share is None:
        return False
    remote_shares_end([share])
    return True


def remote_shares_end(shares) -> int:
    """End these remote shares (inside the caller's transaction): each one its other hub took, or
    may have, is withdrawn there."""
    ended = 0
    for share in shares:
        if share.state != FAILED or Message.objects.filter(share_id=share.pk, state=PENDING).exists():
            message_queue(share=share, kind=WITHDRAW)
        share.delete()
        ended += 1
    return ended


def remote_shares_update(*, packet: Packet) -> int:
    """The creator re-pushed `packet`: each remote share of it sends the new version."""
    shares = list(RemoteShare.objects.filter(packet_id=packet.pk).exclude(state=FAILED).select_related("sender"))
    for share in shares:
        message_queue(share=share, kind=UPDATE, packet=packet)
    return len(shares)


def remote_shares_prune(*, team_id=None, packet_ids=(), **_signal) -> int:
    """End the remote shares whose sender may no longer share the packet (SHARE): they left its
    team, the team stopped sharing outside it, or the packet moved. Connected to teams'
    `sharing_narrowed` signal and called after a move."""
    packets = Packet.objects.none()
    if team_id is not None:
        packets = Packet.objects.filter(team_id=team_id)
    if packet_ids:
        packets = packets | Packet.objects.filter(pk__in=list(packet_ids))
    shares = RemoteShare.objects.filter(packet_id__in=packets.values("pk")).select_related("sender")
    dead = [
        share for share in shares if not Packet.objects.shareable_by(share.sender).filter(pk=share.packet_id).exists()
    ]
    return remote_shares_end(dead)


def remote_shares_of_deleted(*, packet_ids) -> int:
    """The packets are gone: their remote shares are withdrawn."""
    return remote_shares_end(list(RemoteShare.objects.filter(packet_id__in=list(packet_ids)).select_related("sender")))


def message_queue(*, share: RemoteShare, kind: str, packet: Packet | None = None) -> Message:
    """Write the message of `kind` about `share` and send it once the transaction commits."""
    message = Message(share_id=share.pk, host=share.host, kind=kind)
    body = {
        "type": kind,
        "id": message.id,
        "from": f"{share.sender.username}@{peers.own_host()}",
        "to": share.address.rsplit("@", 1)[0],
        "note": share.note,
    }
    if kind == WITHDRAW:
        body["packet_id"] = share.packet_id
    else:
        content = json.loads(packet.body)
        body["packet"], body["packet_signature"] = content, keys.packet_sign(content)
    message.body = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    message.save()
    if settings.LTM_FEDERATION_SENDER == "web":
        transaction.on_commit(sender.wake)
    else:
        queue_after_commit(SEND_TASK, args=[message.pk])
    return message
