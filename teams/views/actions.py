"""The actions of a team's page on its members, its ownership and the team itself (each a POST
through core.dashboard's dashboard_action, with its question first where one is asked)."""

from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest
from teams import selectors, services
from teams.models import Membership
from teams.views.invites import invite_link
from teams.views.pages import OFFER_OWNERSHIP, team_or_404, team_page_url


def from_team_page(request, name, **ids):
    """Where a team's actions start: its page. Anyone but a member gets a 404, never the question;
    the actions take the team and the URL's ids."""
    team = team_or_404(request, name)
    return team_page_url(team), {"team": team, **ids}


def _member_name(request, team, user_id, *, default: str) -> str:
    """The display name of a member of the team, for the confirmation question and the message."""
    member = selectors.team_member_get(viewer=request.user, team=team, user_id=user_id)
    return member.user.display_name if member else default


def _from_member_row(request, name, user_id):
    """As `from_team_page`, for an action on one member: also their name, for the question and the message."""
    back, args = from_team_page(request, name, user_id=user_id)
    return back, args | {"who": _member_name(request, args["team"], user_id, default="this member")}


def _from_transfer_form(request, name):
    """As `from_team_page`, for offering the ownership: also the member chosen in the form, and their name."""
    new_owner_id = request.POST.get("new_owner_id", "")
    back, args = from_team_page(request, name, new_owner_id=new_owner_id)
    return back, args | {"who": _member_name(request, args["team"], new_owner_id, default="that member")}


# The questions some actions ask first.
REVOKE_INVITE = Confirm(
    "Revoke this invite link?",
    button="Revoke invite",
    message="Nobody can join with it any more. People who already joined stay in the team.",
)

REMOVE_MEMBER = Confirm(
    "Remove {who} from {team.name}?",
    button="Remove member",
    message="They lose access to the team's packets at once. Packets they pushed stay in the team.",
)

LEAVE_TEAM = Confirm(
    "Leave {team.name}?",
    button="Leave team",
    message="You lose access to the team's packets. To come back you need a new invite link.",
)


@dashboard_action(from_team_page)
def invite_resend(request, team, invite_id):
    invite = services.invite_resend(actor=request.user, team=team, invite_id=invite_id, link=invite_link(request))
    return f"Invite sent again to {invite.email}, with a new link; the previous one no longer works."


@dashboard_action(_from_member_row)
def member_role(request, team, user_id, who):
    role = request.POST.get("role", "")
    services.membership_set_role(actor=request.user, team=team, user_id=user_id, role=role)
    return f"{who} is now {'an admin' if role == Membership.ADMIN else 'a member'} of {team.name}."


@dashboard_action(from_team_page, confirm=REVOKE_INVITE)
def invite_revoke(request, team, invite_id):
    services.invite_revoke(actor=request.user, team=team, invite_id=invite_id)
    return "Invite revoked."


@dashboard_action(_from_member_row, confirm=REMOVE_MEMBER)
def member_remove(request, team, user_id, who):
    services.membership_remove(actor=request.user, team=team, user_id=user_id)
    return f"{who} was removed from {team.name}."


@dashboard_action(_from_transfer_form, confirm=OFFER_OWNERSHIP)
def team_transfer(request, team, new_owner_id, who):
    services.team_transfer_offer(actor=request.user, team=team, new_owner_id=new_owner_id)
    return f"Ownership offered to {who}. It changes hands when they accept."


@dashboard_action(from_team_page)
def team_transfer_accept(request, team):
    services.team_transfer_accept(actor=request.user, team=team)
    return f"You now own {team.name}."


@dashboard_action(from_team_page)
def team_transfer_cancel(request, team):
    declining = team.transfer_to_id == request.user.pk  # before the call, which clears it
    services.team_transfer_cancel(actor=request.user, team=team)
    return "You declined the ownership." if declining else "The ownership offer was withdrawn."


@dashboard_action(from_team_page, confirm=LEAVE_TEAM, done="team-list")
def team_leave(request, team):
    services.team_leave(actor=request.user, team=team)
    return f"You left {team.name}."


@dashboard_action(from_team_page, done="team-list")
def team_delete(request, team):
    """Deleting a team takes its packets with it, so the owner types the team's name."""
    if request.POST.get("confirm_name", "").strip() != team.name:  # refused like the service's refusals
        raise BadRequest(f"Type the team's name, {team.name}, to delete it.")
    services.team_delete(actor=request.user, team=team)
    return f"Team {team.name} and its packets were deleted."
