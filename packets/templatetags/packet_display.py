"""Shapes a packet dict for `templates/packets/_packet.html`: the groupings a template cannot do.

Only regroups and parses; every value stays the packet's own text, which the template escapes.
"""

from django import template

from ltm.protocol.packet import parse_timestamp

register = template.Library()

# Failed first: what not to try again matters most to the next reader.
ATTEMPT_GROUPS = [("failed", "Failed"), ("partial", "Partial"), ("succeeded", "Worked")]


@register.filter
def packet_display(packet: dict) -> dict:
    decisions = _dicts(packet.get("decisions"))
    attempts = _dicts(packet.get("attempts"))
    groups = []
    for outcome, label in ATTEMPT_GROUPS:
        items = [a for a in attempts if a.get("outcome") == outcome]
        if items:
            groups.append({"outcome": outcome, "label": label, "attempts": items})
    created = packet.get("created_at")
    return {
        "locked": [d for d in decisions if d.get("locked") is True],
        "tentative": [d for d in decisions if d.get("locked") is not True],
        "attempt_groups": groups,
        "methods": _dicts(packet.get("methods")),
        "project": packet.get("project") if isinstance(packet.get("project"), dict) else {},
        "provenance": packet.get("provenance") if isinstance(packet.get("provenance"), dict) else {},
        "created": parse_timestamp(created) if isinstance(created, str) else None,
    }


def _dicts(items) -> list[dict]:
    return [item for item in items or [] if isinstance(item, dict)]
