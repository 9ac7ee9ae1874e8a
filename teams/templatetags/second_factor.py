"""The notice every page shows a member of a team that requires a second factor they have not
shown (teams.second_factor)."""

from django import template

from teams.second_factor import teams_requiring

register = template.Library()


@register.inclusion_tag("teams/_second_factor_notice.html", takes_context=True)
def second_factor_notice(context):
    request = context.get("request")
    user = getattr(request, "user", None)
    return {"teams": teams_requiring(viewer=user) if user is not None else []}
