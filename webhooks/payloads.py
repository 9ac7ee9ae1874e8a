"""What a delivery's body says: the Standard Webhooks shape `{"type", "timestamp", "data"}`, or for
a Slack webhook `{"text": ...}`. Thin on purpose: a packet is named by its id, goal, team, who and
a link, never by its body, and a packet the secret scan holds back by its id alone (its goal may
be where the secret is)."""

import json
from datetime import datetime

from django.conf import settings
from django.urls import reverse

from webhooks.models import (
    FINDING_CLEARED,
    MEMBER_JOINED,
    MEMBER_LEFT,
    PACKET_CREATED,
    PACKET_DELETED,
    PACKET_FLAGGED,
    PACKET_PUBLISHED,
    PACKET_SHARED,
    PACKET_UNPUBLISHED,
    PACKET_UPDATED,
    SLACK,
    WEBHOOK_PING,
)

GOAL_CHARS = 200


def person(user) -> dict | None:
    return {"id": user.pk, "name": user.display_name} if user is not None else None


def packet_data(packet, *, team_name: str | None, actor, gone: bool = False) -> dict:
    """`data` of a packet event; `gone`: the packet no longer exists (no link)."""
    held = bool(getattr(packet, "quarantined", False))
    return {
        "id": packet.pk,
        "goal": "" if held else packet.goal[:GOAL_CHARS],
        "team": team_name,
        "who": person(actor),
        "link": None if gone else reverse("packet-detail", args=[packet.pk]),
    }


def member_data(*, team_name: str, member: dict, actor) -> dict:
    """`data` of a member event: the team, the member ({"id", "name"}) and who acted."""
    return {"team": team_name, "member": member, "who": person(actor)}


def _absolute(data: dict, base: str) -> dict:
    """`data` with its link made absolute on `base` (the hub's address)."""
    if data.get("link"):
        return {**data, "link": base + data["link"]}
    return data


def body(*, webhook, event: str, data: dict, at: datetime) -> str:
    """The body of one delivery to `webhook`, as sent on every attempt."""
    data = _absolute(data, settings.LTM_EXTERNAL_URL or webhook.hub_url.rstrip("/"))
    if webhook.format == SLACK:
        return json.dumps({"text": slack_text(event, data)}, ensure_ascii=False)
    stamp = at.isoformat(timespec="seconds").replace("+00:00", "Z")
    return json.dumps({"type": event, "timestamp": stamp, "data": data}, ensure_ascii=False)


def slack_text(event: str, data: dict) -> str:
    """One line for a chat: who did what, to which packet, with its link in Slack's markup."""
    who = _escaped((data.get("who") or {}).get("name") or "The hub")
    where = f" in {data['team']}" if data.get("team") else ""
    goal = f": {_escaped(data['goal'])}" if data.get("goal") else ""
    packet = f"<{data['link']}|{_escaped(data.get('id'))}>" if data.get("link") else _escaped(data.get("id"))
    member = _escaped((data.get("member") or {}).get("name") or "someone")
    said = {
        PACKET_CREATED: f"{who} pushed packet {packet}{where}{goal}",
        PACKET_UPDATED: f"{who} updated packet {packet}{where}{goal}",
        PACKET_DELETED: f"{who} deleted packet {packet}{where}{goal}",
        PACKET_PUBLISHED: f"{who} published packet {packet}{where}{goal}",
        PACKET_UNPUBLISHED: f"{who} unpublished packet {packet}{where}{goal}",
        PACKET_SHARED: f"{who} shared packet {packet}{where}{goal}",
        PACKET_FLAGGED: f"The secret scan flagged packet {packet}{where}; it is held back until cleared",
        FINDING_CLEARED: f"{who} cleared the secret-scan findings of packet {packet}{where}",
        MEMBER_JOINED: f"{member} joined {data.get('team')}",
        MEMBER_LEFT: f"{member} left {data.get('team')}",
        WEBHOOK_PING: "Ping from the ltm hub: this webhook works.",
    }
    return said.get(event, event)


def _escaped(text) -> str:
    """Text as Slack's markup needs it: &, < and > escaped (they would start markup)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
