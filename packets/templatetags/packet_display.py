"""Shapes a packet dict for `templates/packets/_packet.html`: the groupings a template cannot do,
and the marks that show where the secret scan found something.

Only regroups and parses; every value stays the packet's own text, which the template escapes.
"""

from django import template
from django.utils.html import format_html

from ltm.protocol.packet import parse_timestamp

register = template.Library()

# Failed first: what not to try again matters most to the next reader.
ATTEMPT_GROUPS = [("failed", "Failed"), ("partial", "Partial"), ("succeeded", "Worked")]


@register.filter
def packet_display(packet: dict) -> dict:
    decisions = _dicts(packet.get("decisions"), "decisions")
    attempts = _dicts(packet.get("attempts"), "attempts")
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
        "methods": _dicts(packet.get("methods"), "methods"),
        "project": packet.get("project") if isinstance(packet.get("project"), dict) else {},
        "provenance": packet.get("provenance") if isinstance(packet.get("provenance"), dict) else {},
        "created": parse_timestamp(created) if isinstance(created, str) else None,
    }


def _dicts(items, name: str) -> list[dict]:
    """The list's objects, each with `at`, its JSON path in the packet (`decisions[2]`): the
    regrouping reorders them, and a finding names the place by that path."""
    return [{**item, "at": f"{name}[{index}]"} for index, item in enumerate(items or []) if isinstance(item, dict)]


@register.filter
def at(path: str, key) -> str:
    """The JSON path of a field or item under `path`: `"decisions[2]"|at:"why"`, `"tags"|at:1`."""
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


@register.filter
def finding_marks(scan) -> dict[str, str]:
    """{JSON path: the kinds found there} of a packet the scan holds (none once cleared)."""
    marks: dict[str, list[str]] = {}
    if scan and scan.get("quarantined"):
        for finding in scan["findings"]:
            marks.setdefault(finding["path"], []).append(finding["kind"])
    return {path: ", ".join(kinds) for path, kinds in marks.items()}


@register.simple_tag
def finding_mark(marks, path: str) -> str:
    """A mark beside the text at `path` when the scan found something there: the kind, never the
    value, and the anchor the findings table links to."""
    kinds = (marks or {}).get(path)
    if not kinds:
        return ""
    return format_html('<mark class="finding-mark" id="finding-{}">possible secret: {}</mark>', path, kinds)
