"""Builders of packets for tests of packets and of every app above it."""

import copy
import itertools

from ltm.protocol.packet import canonical_json, example_packet, parse_timestamp
from packets.models import Packet
from packets.services import packet_push

_counter = itertools.count(1)


def packet_v02(**overrides) -> dict:
    packet = copy.deepcopy(example_packet())
    packet["id"] = f"01TESTPACKET{next(_counter):014d}"
    packet.update(overrides)
    return packet


def packet_v01(**overrides) -> dict:
    packet = {
        "ltm_version": "0.1",
        "id": f"01TESTPACKETV1{next(_counter):012d}",
        "created_at": "2026-04-18T22:41:03Z",
        "goal": "Make the importer idempotent.",
        "decisions": [{"what": "Use upserts", "why": "Re-runs must not duplicate rows", "locked": True}],
        "attempts": [{"tried": "Delete then insert", "outcome": "failed", "learned": "Loses history"}],
        "next_step": "Write the upsert for the orders table.",
    }
    packet.update(overrides)
    return packet


SEEDED = "01SEED"  # the id prefix of seeded packets


def seed_packets(owner, count, team=None) -> None:
    """`count` packets of `owner`, personal or in `team`, stored directly (quicker than pushing
    each one); their ids start with SEEDED."""
    body = canonical_json(packet_v02())
    scope = team.pk if team else ""
    Packet.objects.bulk_create(
        Packet(
            id=f"{SEEDED}{owner.username}{scope}{i:08d}",
            owner=owner,
            team=team,
            ltm_version="0.2",
            created_at="2026-01-01T00:00:00Z",
            goal=f"goal {i}",
            next_step="n",
            body=body,
        )
        for i in range(count)
    )


def push_packet(owner, team=None, **fields):
    """A valid packet pushed by `owner`, personal or into `team`: the stored row."""
    packet = packet_push(actor=owner, packet=packet_v02(**fields), team=team)
    return packet


def store_directly(owner, packet: dict, team=None):
    """Store `packet` as a row without the push service's rules: a packet stored before the hub
    restricted ids (e.g. one holding "/") must stay reachable."""
    return Packet.objects.create(
        id=packet["id"],
        owner=owner,
        team=team,
        ltm_version=packet["ltm_version"],
        created_at=parse_timestamp(packet["created_at"]),
        goal=packet["goal"],
        next_step=packet["next_step"],
        body=canonical_json(packet),
    )
