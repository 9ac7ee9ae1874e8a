"""A packet's page on the dashboard, its download, and the actions on it that are the packet's own
(delete, move); a page the secret scan holds back from the viewer says so instead."""

import json

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest, NotFound
from ltm.protocol.resume import render_resume
from packets import selectors, services
from packets.forms import PERSONAL, scope_team_name, team_choice
from packets.models import SHARE_NOTE_MAX_LENGTH, Held, Packet
from packets.pages import detail_url, from_visible_packet
from packets.publishing.selectors import public_url
from packets.scan import findings
from packets.search import meaning
from packets.search.selectors import related_packets
from packets.sharing import remote
from packets.sharing.selectors import shares_received
from teams.selectors import team_get_for_member, teams_for_user


def _visible_packet(request, packet_id, *, read=selectors.packet_get):
    """The packet if the viewer may see it; a 404 page otherwise, whoever's it is."""
    try:
        return read(viewer=request.user, packet_id=packet_id)
    except NotFound as exc:
        raise Http404(exc.message) from None


def _read_packet(request, packet_id):
    """As `_visible_packet`, for the pages that show the packet itself: opening one shared with
    the viewer marks the share seen."""
    return _visible_packet(request, packet_id, read=services.packet_read)


@login_required
def packet_detail(request, packet_id):
    try:
        packet = _read_packet(request, packet_id)
    except Held:
        return _held_page(request, packet_id)
    data = json.loads(packet.body)
    parent, children = selectors.packet_visible_chain(viewer=request.user, packet=packet)
    rights = selectors.packet_viewer_rights(viewer=request.user, packet=packet)
    move_targets = []
    if rights["move"]:
        if packet.team_id is not None:
            move_targets.append((PERSONAL, "Personal"))
        move_targets += [team_choice(team) for team in teams_for_user(viewer=request.user) if team.pk != packet.team_id]
    context = {
        "record": packet,
        "packet": data,
        "chain": {
            "parent": _chain_link(parent) if parent else None,
            "children": [_chain_link(child) for child in children],
            "thread_url": reverse("packet-thread", args=[packet.id]),
        },
        "resume_text": render_resume(data),
        "json_text": packet.body,
        "rights": rights,
        "move_targets": move_targets,
        "public_url": public_url(request, packet) if packet.public_slug else "",
        "shares_received": shares_received(viewer=request.user, packet_id=packet.pk),
        "origin": remote.origin(packet.pk),
        "share_note_max": SHARE_NOTE_MAX_LENGTH,
        "scan": _scan_report(request, packet),
        "clear_reason_max": findings.CLEAR_REASON_MAX_LENGTH,
        # The Related panel: none at all where LTM_SEMANTIC is off.
        "related": related_packets(viewer=request.user, packet_id=packet.pk) if meaning.enabled() else None,
    }
    return render(request, "packets/detail.html", context)


def _held_page(request, packet_id):
    """The page of a packet the secret scan holds back from the viewer (HELD): that it is held,
    what was found (never the secret) and who may end it; nothing of its content. A 409, as a pull."""
    packet = _visible_packet(request, packet_id, read=selectors.packet_held_heading)
    context = {
        "record": packet,
        "scan": {"findings": _visible_packet(request, packet_id, read=findings.findings_list)},
        "shares_received": shares_received(viewer=request.user, packet_id=packet_id),
    }
    return render(request, "packets/held.html", context, status=409)


def _scan_report(request, packet: Packet) -> dict | None:
    """What the hub's secret scan found in the packet, for the warning on its page (None: nothing):
    the findings (path and kind, never the secret), whether they hold the packet back, and who
    cleared them, when and why."""
    if not packet.findings:
        return None
    rows = _visible_packet(request, packet.pk, read=findings.findings_list)
    return {"findings": rows, "quarantined": packet.quarantined, "cleared": None if packet.quarantined else rows[0]}


def _chain_link(packet) -> dict:
    return {"id": packet.id, "goal": packet.goal, "url": detail_url(packet.id)}


@login_required
def packet_download(request, packet_id):
    try:
        packet = _read_packet(request, packet_id)
    except Held:
        return _held_page(request, packet_id)
    response = HttpResponse(packet.body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="ltm-{packet.id}.json"'
    return response


DELETE_PACKET = Confirm(
    "Delete this packet?",
    button="Delete packet",
    message="It is removed from the hub for everyone who can see it, and its public page goes with it.",
)


@dashboard_action(from_visible_packet, confirm=DELETE_PACKET, done="home")
def packet_delete(request, packet_id):
    services.packet_delete(actor=request.user, packet_id=packet_id)
    return "Packet deleted."


@dashboard_action(from_visible_packet)
def packet_move(request, packet_id):
    """Move to "personal" or "team:<name>" (the choices offered on the packet's page). A bad choice
    is refused as the service refuses: its message on the packet's page."""
    target = request.POST.get("to", "")
    team_name = scope_team_name(target)
    if target == PERSONAL:
        team = None
    elif team_name is None:
        raise BadRequest("Choose where to move the packet.")
    else:
        try:
            team = team_get_for_member(viewer=request.user, name=team_name)
        except NotFound:
            raise BadRequest("You are not a member of that team.") from None
    services.packet_move(actor=request.user, packet_id=packet_id, team=team)
    return f"Moved to {'your personal packets' if team is None else 'team ' + team.name}."
