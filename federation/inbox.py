"""The inbox: a message from another hub, checked, then applied in one transaction.

In order: the body's shape; the sender's hub against the federation setting and the blocks
(403); the request's signature (RFC 9421) with a key the sender's hub publishes, its
Content-Digest and its `created` within five minutes (401); the message id not seen before from
that hub (409, a replay); the packet's own signature by that hub's key and the protocol's schema
(422); the recipient (404 "no such user", nothing else said); this hub's own secret scan under its
own policy (422); an id held here by another packet (409). A share or update stores the packet,
owned by the sender's stand-in (a user who cannot sign in, named by the address) and shared
with the recipient, who reads it wherever shared packets are read and cannot change it, and is
mailed about a new share as about one made here; a withdraw takes the share away, and the packet
with its last share.
"""

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from http_message_signatures import InvalidSignature

from accounts.models import User
from core.errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from core.parsers import read_json_body
from federation import documents, keys, peers, signing
from federation.models import SHARE, UPDATE, WITHDRAW, Peer, Received, Seen, StandIn
from ltm.protocol.packet import MAX_PACKET_BYTES, PacketError, validate_packet
from packets.models import Packet, Share, findings_named
from packets.services import packet_push
from packets.sharing.services import person_named, share_mail_after_commit

MAX_MESSAGE_BYTES = MAX_PACKET_BYTES + 8 * 1024


def message_receive(*, url: str, headers, body: bytes) -> dict:
    """Check and apply the message `body` POSTed to `url` (this inbox) with `headers`."""
    if len(body) > MAX_MESSAGE_BYTES:
        raise BadRequest(f"a message is at most {MAX_MESSAGE_BYTES} bytes; got {len(body)}")
    message = _shape(body)
    _, host = peers.address_parts(message["from"])
    if reason := peers.refusal(host):
        _count(host, refused=reason)
        raise Forbidden(reason)
    try:
        signed = signing.verify(url=url, headers=headers, body=body, public_key=lambda kid: _key_of(host, kid))
    except InvalidSignature as exc:
        _count(host, refused=f"signature refused: {exc}")
        raise Unauthorized(f"signature refused: {exc}") from None
    try:
        return _apply(message, host=host, kid=signed["keyid"])
    except (Conflict, NotFound, Unprocessable, BadRequest) as exc:
        _count(host, refused=exc.message)
        raise


def _key_of(host: str, kid: str):
    try:
        key = documents.public_key(host, kid)
    except documents.Unreachable as exc:
        raise InvalidSignature(f"the keys of {host} could not be read: {exc}") from None
    if key is None:
        raise InvalidSignature(f"the key {kid} is not one that {host} publishes")
    return key


def _shape(body: bytes) -> dict:
    message = read_json_body(body)  # the hub's one reader: strict JSON, no NUL, bounded depth
    if not isinstance(message, dict):
        raise BadRequest("the message is a JSON object")
    if message.get("type") not in (SHARE, UPDATE, WITHDRAW):
        raise BadRequest("type is share, update or withdraw")
    for name in ("id", "from", "to"):
        if not isinstance(message.get(name), str) or not message[name]:
            raise BadRequest(f"{name} is required (a string)")
    if not isinstance(message.get("note", ""), str):
        raise BadRequest("note must be a string")
    if message["type"] == WITHDRAW:
        if not isinstance(message.get("packet_id"), str):
            raise BadRequest("packet_id is required (a string) in a withdraw")
    elif not isinstance(message.get("packet"), dict) or not isinstance(message.get("packet_signature"), dict):
        raise BadRequest("packet and packet_signature are required (objects) in a share or update")
    return message


@transaction.atomic
def _apply(message: dict, *, host: str, kid: str) -> dict:
    try:
        with transaction.atomic():
            Seen.objects.create(host=host, message_id=message["id"][:100])
    except IntegrityError:
        raise Conflict(f"message {message['id'][:100]} was received already (a replay)") from None
    if message["type"] == WITHDRAW:
        _withdraw(message, host=host)
    else:
        _share(message, host=host)
    Peer.objects.get_or_create(host=host)
    Peer.objects.filter(host=host).update(received=F("received") + 1)
    return {"id": message["id"], "type": message["type"]}


def _share(message: dict, *, host: str) -> None:
    packet, signature = message["packet"], message["packet_signature"]
    public = documents.public_key(host, signature.get("kid")) if isinstance(signature.get("kid"), str) else None
    if signature.get("alg") != keys.ALG or public is None or not keys.packet_signature_valid(packet, signature, public):
        raise Unprocessable(f"the packet's signature does not match it, or is not by a key {host} publishes")
    try:
        validate_packet(packet)
    except PacketError as exc:
        raise Unprocessable(f"the packet is not valid: {exc}") from None
    recipient = person_named(message["to"])
    received = Received.objects.select_for_update().filter(pk=packet["id"]).first()
    if received is not None and received.host != host or received is None and Packet.objects.filter(pk=packet["id"]):
        raise Conflict(f"packet id {packet['id']} is already held on this hub by another packet")
    sender = stand_in(message["from"])
    owner = received.owner if received is not None else sender
    stored = packet_push(actor=owner, packet=packet)  # scanned under this hub's policy: 422 when it refuses
    if stored.quarantined:
        raise Unprocessable(
            f"this hub's secret scan found {findings_named(stored.findings)} in the packet, "
            "and it takes no packet from another hub that carries secrets",
            extra={"findings": stored.findings},
        )
    now = timezone.now()
    Received.objects.update_or_create(
        pk=stored.pk,
        defaults={
            "host": host,
            "owner": owner,
            "kid": signature["kid"],
            "signature": signature["sig"],
            "updated_at": now,
        },
    )
    if message["type"] == SHARE:
        share, created = Share.objects.get_or_create(
            packet=stored, sender=sender, recipient=recipient, defaults={"note": message.get("note", "")[:500]}
        )
        if created:
            share_mail_after_commit(share)  # as a share here: a new one is mailed, not a new note
        elif share.note != message.get("note", ""):
            share.note, share.seen_at = message.get("note", "")[:500], None
            share.save(update_fields=["note", "seen_at"])


def _withdraw(message: dict, *, host: str) -> None:
    received = Received.objects.select_for_update().filter(pk=message["packet_id"], host=host).first()
    sender = StandIn.objects.filter(address=message["from"]).first()
    if received is None or sender is None:
        return  # nothing of it here: withdrawn already, or never taken
    Share.objects.filter(packet_id=received.pk, sender_id=sender.user_id, recipient__username=message["to"]).delete()
    if not Share.objects.filter(packet_id=received.pk).exists():
        Packet.objects.filter(pk=received.pk).delete()
        received.delete()


def stand_in(address: str) -> User:
    """The user that stands for the person at `address` here: made on first use, inactive and
    without a password (nobody signs in as them), named and shown by the address."""
    known = StandIn.objects.select_related("user").filter(address=address).first()
    if known is not None:
        return known.user
    if User.objects.filter(username=address).exists():
        raise Conflict(f"the name {address} belongs to a person of this hub")
    user = User(username=address, display=address[:80], is_active=False, email="")
    user.set_unusable_password()
    user.save()
    StandIn.objects.create(user=user, address=address)
    return user


def _count(host: str, *, refused: str) -> None:
    """A refused message: counted on the sender's Peer, with the reason, when the hub is known."""
    Peer.objects.filter(host=host).update(
        refused=F("refused") + 1, last_error=refused[:500], last_error_at=timezone.now()
    )
