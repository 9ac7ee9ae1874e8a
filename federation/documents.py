"""Identity documents: this hub's own (GET /.well-known/ltm-hub) and other hubs', fetched through
the outbound guard and kept on their Peer row, so that a key is fetched again only when a
message names one the row does not hold (a key published since: rotation)."""

import json
from datetime import timedelta

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from core import outbound
from federation import keys, peers
from federation.models import Peer

WELL_KNOWN = "/.well-known/ltm-hub"
PROTOCOL = "0.2"
DOCUMENT_BYTES = 64 * 1024
# A hub's document is fetched again at most this often when a message names an unknown key.
REFETCH_AFTER = timedelta(seconds=30)


class Unreachable(Exception):
    """The other hub's document could not be had; the message says why, for people."""


def identity() -> dict:
    """This hub's identity document."""
    url = peers.own_url()
    return {
        "url": url,
        "name": settings.LTM_HUB_NAME or peers.own_host(),
        "protocol": PROTOCOL,
        "software": {"name": "ltm-hub", "version": settings.LTM_VERSION},
        "inbox": url + reverse("federation-inbox"),
        "keys": keys.published(),
    }


def fetch(host: str) -> Peer:
    """Fetch the document of the hub at `host` and keep its name, inbox and keys on its Peer;
    Unreachable says why not."""
    url = peers.origin(host) + WELL_KNOWN
    try:
        answer = outbound.get(
            url,
            headers={"Accept": "application/json", "User-Agent": "ltm-hub-federation"},
            timeout=settings.LTM_FEDERATION_TIMEOUT,
            max_response_bytes=DOCUMENT_BYTES,
            allow_hosts=peers.outbound_hosts(),
        )
    except outbound.OutboundError as exc:
        raise Unreachable(f"{url}: {exc}") from None
    if answer.status != 200:
        raise Unreachable(f"{url} answered {answer.status}")
    try:
        document = json.loads(answer.body)
        inbox, published = document["inbox"], document["keys"]
        for entry in published:
            keys.public_from_jwk(entry)
    except (ValueError, KeyError, TypeError):
        raise Unreachable(f"{url} is not a hub's identity document") from None
    if not isinstance(inbox, str) or peers.normal_host(inbox) != host:
        raise Unreachable(f"{url} names an inbox on another host")
    peer, _ = Peer.objects.get_or_create(host=host)
    peer.name = str(document.get("name") or "")[:200]
    peer.inbox, peer.keys, peer.keys_fetched_at = inbox, published, timezone.now()
    peer.save(update_fields=["name", "inbox", "keys", "keys_fetched_at"])
    return peer


def peer_known(host: str) -> Peer:
    """The Peer of `host` with its document, fetched when it has none yet."""
    peer = Peer.objects.filter(host=host).first()
    if peer is None or not peer.inbox:
        peer = fetch(host)
    return peer


def public_key(host: str, kid: str):
    """The public key `kid` of the hub at `host`, or None when that hub does not publish it (its
    document is fetched again when the kept one lacks it, at most every REFETCH_AFTER)."""
    peer = Peer.objects.filter(host=host).first()
    for attempt in range(2):
        found = next((entry for entry in (peer.keys if peer else []) if entry.get("kid") == kid), None)
        if found is not None:
            return keys.public_from_jwk(found)
        recent = peer and peer.keys_fetched_at and timezone.now() - peer.keys_fetched_at < REFETCH_AFTER
        if attempt or recent:
            return None
        peer = fetch(host)
    return None
