"""Fixtures of the sharing tests: alice shares her personal packet with bob."""

import pytest

from packets.testing import push_packet
from packets.testing.sharing import share


@pytest.fixture
def sender(api_as, alice):
    alice.display = "Alice Archer"
    alice.save()
    return api_as(alice)


@pytest.fixture
def recipient(api_as, bob):
    return api_as(bob)


@pytest.fixture
def packet(alice):
    """alice's personal packet."""
    return push_packet(alice, goal="Make the importer idempotent")


@pytest.fixture
def shared(sender, packet):
    """alice's packet, shared with bob: the share's answer."""
    response = share(sender, packet.id, "bob", note="have a look")
    assert response.status_code == 201, response.content
    return response.json()["share"]
