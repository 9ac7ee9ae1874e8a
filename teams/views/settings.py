"""A team's settings on its page: sharing outside the team, the secret scan and the requirement
of a second factor (owner and admins; the service checks)."""

from core.dashboard import Confirm, dashboard_action
from teams import services
from teams.second_factor import members_without_second_factor
from teams.views.actions import from_team_page
from teams.views.pages import SCAN_SAID

STOP_SHARING_OUTSIDE = Confirm(
    "Stop sharing {team.name}'s packets outside the team?",
    button="Stop sharing outside",
    message=(
        "Members can no longer share the team's packets with people outside it, and what they "
        "shared that way ends now: those people can no longer open the packets."
    ),
)


@dashboard_action(from_team_page)
def team_share_outside_allow(request, team):
    services.team_settings_update(actor=request.user, team=team, share_outside=True)
    return f"Members may now share {team.name}'s packets with people outside the team."


@dashboard_action(from_team_page, confirm=STOP_SHARING_OUTSIDE)
def team_share_outside_stop(request, team):
    services.team_settings_update(actor=request.user, team=team, share_outside=False)
    return f"{team.name}'s packets are no longer shared outside the team."


@dashboard_action(from_team_page)
def team_secret_scan(request, team):
    level = request.POST.get("secret_scan", "")
    services.team_settings_update(actor=request.user, team=team, secret_scan=level)
    return f"{team.name}'s secret scan is now {level}: {SCAN_SAID[level]}."


@dashboard_action(from_team_page)
def team_require_mfa_on(request, team):
    team = services.team_settings_update(actor=request.user, team=team, require_mfa=True)
    missing = [member.user.display_name for member in members_without_second_factor(team=team)]
    if not missing:
        return f"{team.name} now requires a second factor; every member has one."
    return (
        f"{team.name} now requires a second factor. Not yet compliant: {', '.join(missing)}; "
        "the team's packets stay closed to them until they add one."
    )


@dashboard_action(from_team_page)
def team_require_mfa_off(request, team):
    services.team_settings_update(actor=request.user, team=team, require_mfa=False)
    return f"{team.name} no longer requires a second factor."
