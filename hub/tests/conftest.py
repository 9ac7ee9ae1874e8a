"""Fixtures of the whole-hub tests: the Go client of alice, a packet it pushed and a team it made."""

import json

import pytest

from hub.testing.go_client import GoClient, go_success
from packets.testing import packet_v02


@pytest.fixture
def go(api_as, alice):
    """The Go client of alice, signed in with a personal token."""
    return GoClient(api_as(alice).token)


@pytest.fixture
def pushed(go):
    packet = packet_v02()
    assert go_success(go.do("POST", "/v1/packets", json.dumps(packet, indent=2).encode()))
    return packet


@pytest.fixture
def core(go):
    assert go_success(go.do("POST", "/v1/teams", json.dumps({"name": "core"}).encode()))
    return "core"
