"""Helpers for the tests of the secret scan: a packet carrying a made-up token, its clean version,
a team's scan level set through the API, a packet's stored row, a team's log lines."""

import json

from packets.models import Packet
from packets.testing import packet_v02

# A GitLab token in the next step: made up, in the real format.
TOKEN = "glpat-Xq7vR2mK9pL4sT8wZ3nB"
FOUND = [{"path": "next_step", "kind": "gitlab-token"}]


def leaky(**changes) -> dict:
    return packet_v02(next_step=f"clone with {TOKEN} and run the suite", **changes)


def clean(packet: dict) -> dict:
    return {**packet, "next_step": "clone with the CI token from the vault and run the suite"}


def set_scan(api, team: str, level: str):
    return api.client.patch(
        f"/v1/teams/{team}",
        data=json.dumps({"secret_scan": level}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def stored(packet: dict) -> Packet:
    return Packet.objects.get(pk=packet["id"])


def events(api, kind: str) -> list[dict]:
    return api.get(f"/v1/teams/alpha/events?kind={kind}").json()["events"]
