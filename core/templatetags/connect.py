"""`{% load connect %}{% connect_agent hub_url %}`: the agent lines of core/connect.py for this
hub, as the home page and /client/ show them (templates/core/_connect_agent.html)."""

from django import template

from core.connect import agent_lines

register = template.Library()


@register.inclusion_tag("core/_connect_agent.html")
def connect_agent(hub_url: str) -> dict:
    return {"hub_url": hub_url, "agent_lines": agent_lines(hub_url)}
