"""Template filters of the dashboard's pages: `{% load dashboard %}`."""

from datetime import timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def ago(when) -> str:
    """How long ago, for people: "just now" within the last minute (where Django's timesince would
    say "0 minutes"), else "3 minutes ago", "2 days, 4 hours ago"; "" for no time at all."""
    if not when:
        return ""
    if timezone.now() - when < timedelta(minutes=1):
        return "just now"
    return f"{timesince(when)} ago"
