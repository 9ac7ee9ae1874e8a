"""Pages of teams: the dashboard's list (and creating one) and a team's page with its actions,
and the invite link opened in a browser.

Every rule (who may invite, remove, transfer, delete) is the services'; a stranger gets 404.
"""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from core.dashboard import Confirm, dashboard_action, show_service_error
from core.errors import BadRequest, Gone, HubError, NotFound
from teams import selectors, services
from teams.forms import TeamActivityForm, TeamCreateForm
from teams.models import SCAN_FLAG, SCAN_LEVELS, SCAN_OFF, SCAN_REFUSE, Membership, TeamEvent, strictest_scan
from teams.signals import packets_readable

# How many lines of the activity log the team's page shows, and a page of the log.
RECENT_EVENTS = 8
EVENTS_PER_PAGE = 30


def _team_or_404(request, name):
    try:
        return selectors.team_get_for_member(viewer=request.user, name=name)
    except NotFound as exc:
        raise Http404(exc.message) from None


def team_page_url(team) -> str:
    """The dashboard's page of a team."""
    return reverse("team-detail", args=[team.name])


@login_required
def team_list(request):
    form = TeamCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = services.team_create(actor=request.user, name=form.cleaned_data["name"])
        except HubError as exc:
            form.add_error("name", exc.message)
        else:
            messages.success(request, f"Team {team.name} created. Invite people with a link below.")
            return redirect(team_page_url(team))
    # One row per membership: the team, the viewer's role in it and when they joined.
    rows = selectors.memberships_of(viewer=request.user)
    offers = selectors.transfers_offered_to(viewer=request.user)
    status = 400 if form.errors else 200
    return render(request, "teams/list.html", {"form": form, "rows": rows, "offers": offers}, status=status)


@login_required
def team_detail(request, name):
    return _team_page(request, _team_or_404(request, name))


def _team_page(request, team, *, new_invite: dict | None = None, status: int = 200):
    members = list(selectors.team_members(viewer=request.user, team=team))
    role = next((m.role for m in members if m.user_id == request.user.pk), Membership.MEMBER)
    is_owner = role == Membership.OWNER
    for member in members:
        member.removable = _may_remove(role, member, request.user)
    transfer_candidates = [m for m in members if m.role != Membership.OWNER]
    for member in transfer_candidates:  # the dialog asks what the page without JavaScript asks
        member.offer_question = OFFER_OWNERSHIP.format(team=team, who=member.user.display_name).title
    context = {
        "team": team,
        "members": members,
        "invites": selectors.team_pending_invites(viewer=request.user, team=team),
        "role": role,
        "is_owner": is_owner,
        "is_manager": role in Membership.MANAGERS,
        "transfer_candidates": transfer_candidates,
        "offered_to_me": team.transfer_to_id == request.user.pk,
        "transfer_to": team.transfer_to if team.transfer_to_id else None,
        "events": _with_packet_links(
            request.user, selectors.team_events(viewer=request.user, team=team, limit=RECENT_EVENTS)
        ),
        "new_invite": new_invite,
        "secret_scan": _secret_scan(team),
    }
    return render(request, "teams/detail.html", context, status=status)


# What each level of the secret scan does with a pushed packet.
SCAN_SAID = {
    SCAN_OFF: "packets are not scanned",
    SCAN_FLAG: "a packet that looks like it carries secrets is stored but quarantined (not published, not shared) until fixed or cleared",
    SCAN_REFUSE: "a packet that looks like it carries secrets is refused, and nothing is stored",
}


def _secret_scan(team) -> dict:
    """The team's secret scan for its page: the hub's level, the one in force for the team, and the
    levels the team may choose, each with what it does (teams.services refuses one looser than
    the hub's; strictest_scan orders them)."""
    hub = settings.LTM_SECRET_SCAN
    level = strictest_scan(hub, team.secret_scan)
    return {
        "hub": hub,
        "level": level,
        "said": SCAN_SAID[level],
        "choices": [(choice, SCAN_SAID[choice]) for choice in SCAN_LEVELS if strictest_scan(hub, choice) == choice],
    }


def _may_remove(role: str, member: Membership, viewer) -> bool:
    """Whether to show a Remove button: what teams.services.membership_remove would allow."""
    return services.membership_removal_refusal(actor_role=role, member_role=member.role) is None


def _with_packet_links(viewer, events: list) -> list:
    """Mark the lines whose packet the viewer can still read (`event.packet_readable`), so that
    they link to it; a deleted packet, or one moved where the viewer cannot follow, stays text.
    One query for the whole page, whatever its length. Teams sits below packets (.importlinter):
    it asks through its `packets_readable` signal, which packets answers with its read rule."""
    packet_ids = {event.detail.get("packet_id") for event in events if event.detail} - {None}
    readable = set()
    if packet_ids:
        for _receiver, ids in packets_readable.send(sender=None, viewer=viewer, packet_ids=packet_ids):
            readable |= ids
    for event in events:
        event.packet_readable = bool(event.detail) and event.detail.get("packet_id") in readable
    return events


def _link(request):
    return lambda code: selectors.invite_url(request, code)


@never_cache
@login_required
@require_POST
def invite_create(request, name):
    """A bare link is shown in the answer to this POST (the team's page, 201) and nowhere else:
    it is never kept in the session, where a reader of the session table could use it. With an
    address, the link goes by mail instead and the page does not show it."""
    team = _team_or_404(request, name)
    email = request.POST.get("email", "").strip()
    try:
        invite, code = services.invite_create(
            actor=request.user, team=team, email=email, label=request.POST.get("label", ""), link=_link(request)
        )
    except HubError as exc:
        show_service_error(request, exc)
        return redirect(team_page_url(team))
    if email:
        messages.success(request, f"Invite sent to {invite.email}. The link works once and expires in 7 days.")
        return redirect(team_page_url(team))
    messages.success(request, "Invite link created. Copy it now: it is shown only once.")
    new_invite = {"url": selectors.invite_url(request, code), "expires_at": invite.expires_at, "label": invite.label}
    return _team_page(request, team, new_invite=new_invite, status=201)


def _from_team_page(request, name, **ids):
    """Where a team's actions start: its page. Anyone but a member gets a 404, never the question;
    the actions take the team and the URL's ids."""
    team = _team_or_404(request, name)
    return team_page_url(team), {"team": team, **ids}


def _member_name(request, team, user_id, *, default: str) -> str:
    """The display name of a member of the team, for the confirmation question and the message."""
    member = selectors.team_member_get(viewer=request.user, team=team, user_id=user_id)
    return member.user.display_name if member else default


def _from_member_row(request, name, user_id):
    """As `_from_team_page`, for an action on one member: also their name, for the question and the message."""
    back, args = _from_team_page(request, name, user_id=user_id)
    return back, args | {"who": _member_name(request, args["team"], user_id, default="this member")}


def _from_transfer_form(request, name):
    """As `_from_team_page`, for offering the ownership: also the member chosen in the form, and their name."""
    new_owner_id = request.POST.get("new_owner_id", "")
    back, args = _from_team_page(request, name, new_owner_id=new_owner_id)
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

OFFER_OWNERSHIP = Confirm(
    "Offer the ownership of {team.name} to {who}?",
    button="Offer ownership",
    danger=False,
    message=(
        "{who} becomes the owner when they accept it on the team's page; you then stay on as an "
        "admin and can no longer delete the team or change roles."
    ),
)

STOP_SHARING_OUTSIDE = Confirm(
    "Stop sharing {team.name}'s packets outside the team?",
    button="Stop sharing outside",
    message=(
        "Members can no longer share the team's packets with people outside it, and what they "
        "shared that way ends now: those people can no longer open the packets."
    ),
)

LEAVE_TEAM = Confirm(
    "Leave {team.name}?",
    button="Leave team",
    message="You lose access to the team's packets. To come back you need a new invite link.",
)


@dashboard_action(_from_team_page)
def invite_resend(request, team, invite_id):
    invite = services.invite_resend(actor=request.user, team=team, invite_id=invite_id, link=_link(request))
    return f"Invite sent again to {invite.email}, with a new link; the previous one no longer works."


@dashboard_action(_from_member_row)
def member_role(request, team, user_id, who):
    role = request.POST.get("role", "")
    services.membership_set_role(actor=request.user, team=team, user_id=user_id, role=role)
    return f"{who} is now {'an admin' if role == Membership.ADMIN else 'a member'} of {team.name}."


@dashboard_action(_from_team_page, confirm=REVOKE_INVITE)
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


@dashboard_action(_from_team_page)
def team_transfer_accept(request, team):
    services.team_transfer_accept(actor=request.user, team=team)
    return f"You now own {team.name}."


@dashboard_action(_from_team_page)
def team_transfer_cancel(request, team):
    declining = team.transfer_to_id == request.user.pk  # before the call, which clears it
    services.team_transfer_cancel(actor=request.user, team=team)
    return "You declined the ownership." if declining else "The ownership offer was withdrawn."


@dashboard_action(_from_team_page)
def team_share_outside_allow(request, team):
    services.team_settings_update(actor=request.user, team=team, share_outside=True)
    return f"Members may now share {team.name}'s packets with people outside the team."


@dashboard_action(_from_team_page, confirm=STOP_SHARING_OUTSIDE)
def team_share_outside_stop(request, team):
    services.team_settings_update(actor=request.user, team=team, share_outside=False)
    return f"{team.name}'s packets are no longer shared outside the team."


@dashboard_action(_from_team_page)
def team_secret_scan(request, team):
    level = request.POST.get("secret_scan", "")
    services.team_settings_update(actor=request.user, team=team, secret_scan=level)
    return f"{team.name}'s secret scan is now {level}: {SCAN_SAID[level]}."


@dashboard_action(_from_team_page, confirm=LEAVE_TEAM, done="team-list")
def team_leave(request, team):
    services.team_leave(actor=request.user, team=team)
    return f"You left {team.name}."


@dashboard_action(_from_team_page, done="team-list")
def team_delete(request, team):
    """Deleting a team takes its packets with it, so the owner types the team's name."""
    if request.POST.get("confirm_name", "").strip() != team.name:  # refused like the service's refusals
        raise BadRequest(f"Type the team's name, {team.name}, to delete it.")
    services.team_delete(actor=request.user, team=team)
    return f"Team {team.name} and its packets were deleted."


@login_required
def team_activity(request, name):
    """The team's activity log, newest first, a page at a time (keyset: ?before=<event id>)."""
    team = _team_or_404(request, name)
    query = TeamActivityForm(request.GET).page_arguments()
    events = selectors.team_events(viewer=request.user, team=team, **query, limit=EVENTS_PER_PAGE + 1)
    older = events[EVENTS_PER_PAGE - 1].id if len(events) > EVENTS_PER_PAGE else None
    context = {
        "team": team,
        "events": _with_packet_links(request.user, events[:EVENTS_PER_PAGE]),
        "kinds": TeamEvent.KINDS,
        "kind": query["kind"],
        "older": older,
        "paged": query["before"] is not None,
    }
    return render(request, "teams/activity.html", context)


# The invite link opened in a browser: GET shows the team, who invited and the expiry, and lets
# the person sign in or sign up; POST (session, CSRF) joins and lands on the team's page.


def _viewer_is_member(request, team) -> bool:
    return request.user.is_authenticated and selectors.is_member(viewer=request.user, team_id=team.pk)


def _gone(request, invite, state):
    # Unknown codes are a 404; links that existed but can no longer be used are a 410.
    status = 404 if state == "unknown" else 410
    is_member = invite is not None and _viewer_is_member(request, invite.team)
    context = {"state": state, "invite": invite, "is_member": is_member}
    if is_member:
        context["team_url"] = team_page_url(invite.team)
    return render(request, "teams/invite_gone.html", context, status=status)


@never_cache
@require_http_methods(["GET", "POST"])
def invite_page(request, code):
    invite = selectors.invite_get_for_page(code=code)
    state = invite.state() if invite is not None else "unknown"
    if state != "valid":
        return _gone(request, invite, state)

    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(_with_next(reverse("account_login"), request.path))
        try:
            _, team, _ = services.invite_accept(code=code, actor=request.user)
        except Gone:  # someone else used it between the page and the click
            return _gone(request, selectors.invite_get_for_page(code=code), "used")
        messages.success(request, f"You joined the team {team.name}.")
        return redirect(team_page_url(team))

    return render(
        request,
        "teams/invite.html",
        {
            "invite": invite,
            "team": invite.team,
            "is_member": _viewer_is_member(request, invite.team),
            "team_url": team_page_url(invite.team),
            "login_url": _with_next(reverse("account_login"), request.path),
            "signup_url": _with_next(reverse("account_signup"), request.path),
            "join_command": f"ltm join {selectors.invite_url(request, code)}",
        },
    )


def _with_next(url: str, next_path: str) -> str:
    return f"{url}?{urlencode({'next': next_path})}"
