"""How a line of a team's activity log reads on the dashboard."""

from django import template
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def event_summary(event) -> str:
    """The line's phrase (TeamEvent.summary), its packet a link to the packet's page when the
    viewer can still read it (teams.views marks `packet_readable`). People are named, not linked:
    the hub has no page of a person."""
    summary = event.summary
    if not getattr(event, "packet_readable", False):
        return summary
    packet_id = event.detail["packet_id"]
    before, packet, after = summary.partition(f"packet {packet_id}")
    if not packet:
        return summary
    return format_html('{}<a href="{}">{}</a>{}', before, reverse("packet-detail", args=[packet_id]), packet, after)
