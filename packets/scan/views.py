"""The pages of the secret scan: the review queue, and Clear findings on a packet's page."""

from django.contrib.auth.decorators import login_required
from django.db.models import prefetch_related_objects
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.dashboard import dashboard_action
from packets.pages import from_visible_packet, team_asked
from packets.scan import findings
from teams.selectors import teams_for_user


@dashboard_action(from_visible_packet)
def packet_findings_clear(request, packet_id):
    """Vouch for what the secret scan found (the reason is required): the service decides who may."""
    findings.findings_clear(actor=request.user, packet_id=packet_id, reason=request.POST.get("reason", ""))
    return "Findings cleared: everyone who may read the packet can read it again, and it may be published and shared."


# The secret scan's review queue: the packets it holds back that the viewer is asked to look at.


@login_required
@require_safe
def findings_page(request):
    """Quarantined packets the viewer pushed, and those of the teams they own or administer
    (?team=NAME: that team's only)."""
    team = team_asked(request)
    queued = findings.review_queue(viewer=request.user, team=team)
    prefetch_related_objects(queued, "owner")
    context = {"queued": queued, "teams": teams_for_user(viewer=request.user), "team": team}
    return render(request, "packets/findings.html", context)
