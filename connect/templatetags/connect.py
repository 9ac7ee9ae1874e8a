"""`{% load connect %}{% connect_agent hub_url %}`: the agent lines of connect/agents.py for this
hub, as the home page and /client/ show them (templates/connect/_connect_agent.html)."""

from django import template

from connect.agents import agent_lines

register = template.Library()


@register.inclusion_tag("connect/_connect_agent.html")
def connect_agent(hub_url: str) -> dict:
    return {"hub_url": hub_url, "agent_lines": agent_lines(hub_url)}
