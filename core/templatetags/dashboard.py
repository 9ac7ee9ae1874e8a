"""Template filters of the dashboard's pages: `{% load dashboard %}`."""

import re
from datetime import timedelta

from django import template
from django.conf import settings
from django.utils import timezone
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from django.utils.timesince import timesince

register = template.Library()

_CODE_SPAN = re.compile(r"`([^`]+)`")
_TITLE_WORD = re.compile(r"(?<=\s)([A-Z])(?=[a-z]+\b)")


@register.filter
def code_spans(text) -> str:
    """A message written for people, with commands in backticks ("Run `ltm auth` again"), as HTML:
    the text escaped, each `...` a <code> element. Text that is already HTML is left alone."""
    if text is None:
        return ""
    if hasattr(text, "__html__"):
        return text
    return mark_safe(_CODE_SPAN.sub(r"<code>\1</code>", str(conditional_escape(text))))  # nosec: escaped first


@register.filter
def sentence_case(label) -> str:
    """allauth's Title Case labels in the hub's sentence case: "New Password (again)" ->
    "New password (again)". Only capitalised words after the first change (not "API" or "ID")."""
    return _TITLE_WORD.sub(lambda match: match.group(1).lower(), str(label))


@register.filter
def ago(when) -> str:
    """How long ago, for people: "just now" within the last minute (where Django's timesince would
    say "0 minutes"), else "3 minutes ago", "2 days, 4 hours ago"; "" for no time at all."""
    if not when:
        return ""
    if timezone.now() - when < timedelta(minutes=1):
        return "just now"
    return f"{timesince(when)} ago"


@register.simple_tag
def mail_outbox() -> str:
    """Where the hub's mail goes when it is not sent: "console" (printed in the terminal the hub
    runs in, as under `make run`), "file" (written under EMAIL_FILE_PATH), else "" (sent)."""
    backend = settings.EMAIL_BACKEND
    if backend.endswith(".console.EmailBackend"):
        return "console"
    if backend.endswith(".filebased.EmailBackend"):
        return "file"
    return ""
