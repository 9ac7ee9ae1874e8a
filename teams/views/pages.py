"""The dashboard's team pages: the list of the viewer's teams (and creating one), a team's page
and its activity log. Every rule is the services' and selectors'; a stranger gets 404."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse

from core.dashboard import Confirm
from core.errors import HubError, NotFound
from teams import selectors, services
from teams.forms import TeamActivityForm, TeamCreateForm
from teams.models import SCAN_FLAG, SCAN_LEVELS, SCAN_OFF, SCAN_REFUSE, Membership, TeamEvent, strictest_scan
from teams.second_factor import members_without_second_factor
from teams.signals import packets_readable

# How many lines of the activity log the team's page shows, and a page of the log.
RECENT_EVENTS = 8
EVENTS_PER_PAGE = 30


def team_or_404(request, name):
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
    return team_page(request, team_or_404(request, name))


def team_page(request, team, *, new_invite: dict | None = None, status: int = 200):
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
        "without_second_factor": members_without_second_factor(team=team) if team.require_mfa else [],
    }
    return render(request, "teams/detail.html", context, status=status)


# Asked before offering the ownership (teams.views.actions), and by the page's dialog.
OFFER_OWNERSHIP = Confirm(
    "Offer the ownership of {team.name} to {who}?",
    button="Offer ownership",
    danger=False,
    message=(
        "{who} becomes the owner when they accept it on the team's page; you then stay on as an "
        "admin and can no longer delete the team or change roles."
    ),
)


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


@login_required
def team_activity(request, name):
    """The team's activity log, newest first, a page at a time (keyset: ?before=<event id>)."""
    team = team_or_404(request, name)
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
