"""Pages of packets: the dashboard's list (the signed-in home page), a packet's page, the shares
(Shared with me, Shared by me), the secret scan's review queue, and the public page of a
published packet."""

import json

from csp.decorators import csp
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import prefetch_related_objects
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

from core.api import json_error
from core.dashboard import Confirm, dashboard_action
from core.errors import BadRequest, NotFound
from core.links import hub_url
from ltm.protocol.resume import render_resume
from packets import findings, selectors, services, shares
from packets.export import FORMATS, export_response
from packets.forms import PERSONAL, PacketFilterForm, scope_team_name, team_choice
from packets.models import SHARE_NOTE_MAX_LENGTH, Packet
from teams.selectors import team_get_for_member, teams_for_user

PAGE_SIZE = 20


def home(request):
    """Signed in: the person's packets. Signed out: what the hub is and how to connect to it."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {"hub_url": hub_url(request)})
    teams = list(teams_for_user(viewer=request.user))
    form = PacketFilterForm(request.GET or None, teams=teams)
    filters = form.search_arguments()
    text = filters.pop("text", "")
    packets = (
        _matches(request, text, filters) if text.strip() else selectors.packet_search(viewer=request.user, **filters)
    )
    page = Paginator(packets, PAGE_SIZE).get_page(request.GET.get("page"))
    # A packet someone shared with the viewer says so, rather than "personal" (it is not theirs).
    senders = shares.shared_by(viewer=request.user, packet_ids=[packet.id for packet in page])
    for packet in page:
        packet.shared_by = senders.get(packet.id)
    context = {
        "form": form,
        "page": page,
        "searched": bool(text.strip()),
        "filtered": form.is_filtered(),
        "teams": teams,
        "hub_url": hub_url(request),
        "export_team": scope_team_name(form.cleaned_data["scope"]) if form.is_valid() else None,
    }
    return render(request, "packets/list.html", context)


def _matches(request, text: str, filters: dict) -> list[Packet]:
    """The best matches of a search, each with its goal and snippet cut into marked pieces."""
    try:
        hits = selectors.packet_text_search(
            viewer=request.user,
            text=text,
            team_name=filters["team_name"] or None,
            personal=filters["personal"],
            tag=filters["tag"],
            project=filters["project"],
            limit=selectors.SEARCH_MAX_LIMIT,
        )
    except NotFound:  # a team the viewer has just left
        return []
    packets = []
    for hit in hits:
        hit.packet.goal_marks, hit.packet.snippet_marks = hit.goal, hit.snippet
        packets.append(hit.packet)
    prefetch_related_objects(packets, "team", "owner")
    return packets


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
    except findings.Held:
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
        "public_url": selectors.public_url(request, packet) if packet.public_slug else "",
        "shares_received": shares.shares_received(viewer=request.user, packet_id=packet.pk),
        "share_note_max": SHARE_NOTE_MAX_LENGTH,
        "scan": _scan_report(request, packet),
        "clear_reason_max": findings.CLEAR_REASON_MAX_LENGTH,
    }
    return render(request, "packets/detail.html", context)


def _held_page(request, packet_id):
    """The page of a packet the secret scan holds back from the viewer (HELD): that it is held,
    what was found (never the secret) and who may end it; nothing of its content. A 409, as a pull."""
    packet = _visible_packet(request, packet_id, read=selectors.packet_held_heading)
    context = {
        "record": packet,
        "scan": {"findings": _visible_packet(request, packet_id, read=findings.findings_list)},
        "shares_received": shares.shares_received(viewer=request.user, packet_id=packet_id),
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


@login_required
def packet_thread(request, packet_id):
    """The thread that holds a packet, drawn as a tree on a timeline: each packet under the one it
    continues, siblings oldest first, with a line from each packet to the ones that continue it."""
    try:
        items = selectors.packet_thread(viewer=request.user, packet_id=packet_id)
    except NotFound as exc:
        raise Http404(exc.message) from None
    context = {"current": packet_id, "graph": _thread_graph(items, current=packet_id), "count": len(items)}
    return render(request, "packets/thread.html", context)


# The thread graph's geometry, in SVG user units (pixels). Past MAX_INDENT levels a long chain
# goes straight down instead of off the page.
ROW, INDENT, MAX_INDENT, LEFT, TOP, LABEL_WIDTH = 56, 28, 12, 16, 22, 760


def _thread_graph(items: list[dict], *, current: str) -> dict:
    """Coordinates for the thread page's SVG: rows in depth-first order (so the line from a
    packet down to a later child only passes that packet's deeper descendants, never a node of
    its own column), columns by depth, and an elbow line from each packet's parent to it."""
    known = {item["id"] for item in items}
    children: dict[str, list] = {}
    starts = []
    for item in items:  # oldest first, so siblings stay in time order
        parent = item["parent_id"]
        if parent in known and parent != item["id"]:
            children.setdefault(parent, []).append(item)
        else:
            starts.append(item)
    nodes, placed = [], {}
    # Threads from their roots; then whatever a cycle of parent_ids kept out of reach.
    for start in starts + items:
        stack = [(start, None)]
        while stack:
            item, parent = stack.pop()
            if item["id"] in placed:
                continue
            depth = placed[parent][2] + 1 if parent else 0
            x, y = LEFT + min(depth, MAX_INDENT) * INDENT, TOP + len(nodes) * ROW
            placed[item["id"]] = (x, y, depth)
            nodes.append(
                {
                    **item,
                    "x": x,
                    "y": y,
                    "label_x": x + 16,
                    "url": _detail_url(item["id"]),
                    "current": item["id"] == current,
                    "parent_x": placed[parent][0] if parent else None,
                    "parent_y": placed[parent][1] if parent else None,
                }
            )
            stack += [(child, item["id"]) for child in reversed(children.get(item["id"], []))]
    deepest = max((depth for _, _, depth in placed.values()), default=0)
    return {
        "nodes": nodes,
        "width": LEFT + min(deepest, MAX_INDENT) * INDENT + LABEL_WIDTH,
        "height": TOP + max(len(nodes) - 1, 0) * ROW + 30,
    }


def _chain_link(packet) -> dict:
    return {"id": packet.id, "goal": packet.goal, "url": _detail_url(packet.id)}


@login_required
@require_safe
def packets_export(request, format):
    """The dashboard's download buttons: the same stream as GET /v1/export, for the signed-in
    person (all they may read, or ?team=NAME)."""
    if format not in FORMATS:
        raise Http404("no such export format")
    return export_response(viewer=request.user, team=_team_asked(request), format=format)


def _team_asked(request):
    """The team named by ?team=NAME (None without one); a 404 unless the viewer is a member."""
    if not request.GET.get("team"):
        return None
    try:
        return team_get_for_member(viewer=request.user, name=request.GET["team"])
    except NotFound as exc:
        raise Http404(exc.message) from None


@login_required
def packet_download(request, packet_id):
    try:
        packet = _read_packet(request, packet_id)
    except findings.Held:
        return _held_page(request, packet_id)
    response = HttpResponse(packet.body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="ltm-{packet.id}.json"'
    return response


def _from_packet_page(request, packet_id):
    """Where a packet's actions start: its page. Publishing, which asks nothing, leaves the rights
    to the service."""
    return _detail_url(packet_id), {"packet_id": packet_id}


def _from_visible_packet(request, packet_id):
    """As `_from_packet_page`, for the actions with a question or a form: someone else's packet is a
    404 before either (one the secret scan holds back from the viewer is not: the service says
    what they may do with it)."""
    if not selectors.packet_known(viewer=request.user, packet_id=packet_id):
        raise Http404("packet not found")
    return _from_packet_page(request, packet_id)


# The questions some actions ask first.
UNPUBLISH = Confirm(
    "Take the public page down?",
    button="Unpublish",
    message="The public link stops working at once. Publishing again later makes a new link.",
)

DELETE_PACKET = Confirm(
    "Delete this packet?",
    button="Delete packet",
    message="It is removed from the hub for everyone who can see it, and its public page goes with it.",
)


@dashboard_action(_from_packet_page)
def packet_publish(request, packet_id):
    packet = services.packet_publish(actor=request.user, packet_id=packet_id)
    return f"Published. Anyone with the link can read it: {selectors.public_url(request, packet)}"


@dashboard_action(_from_visible_packet, confirm=UNPUBLISH)
def packet_unpublish(request, packet_id):
    services.packet_unpublish(actor=request.user, packet_id=packet_id)
    return "Unpublished: the public link no longer works."


@dashboard_action(_from_visible_packet, confirm=DELETE_PACKET, done="home")
def packet_delete(request, packet_id):
    services.packet_delete(actor=request.user, packet_id=packet_id)
    return "Packet deleted."


@dashboard_action(_from_visible_packet)
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


@dashboard_action(_from_visible_packet)
def packet_share(request, packet_id):
    """Share with the person named in the form. Who may share is the service's rule: its refusal
    (403, 429, yourself) is shown on the packet's page, as is an unknown name."""
    to = request.POST.get("to", "")
    try:
        share, created = shares.share_create(
            actor=request.user,
            packet_id=packet_id,
            to=to,
            note=request.POST.get("note", ""),
            link=shares.packet_page_link(request),
        )
    except NotFound as exc:
        if exc.message != shares.NO_SUCH_USER:  # the packet itself: a 404, as for anyone
            raise
        raise BadRequest(f"Nobody is called {to.strip()} on this hub.") from None
    who = share.recipient.display_name
    if created:
        return f"Shared with {who}. They find it under Shared with me, and can read it until you withdraw it."
    return f"{who} already has this packet from you; its note is now the one you gave."


@dashboard_action(_from_visible_packet)
def packet_findings_clear(request, packet_id):
    """Vouch for what the secret scan found (the reason is required): the service decides who may."""
    findings.findings_clear(actor=request.user, packet_id=packet_id, reason=request.POST.get("reason", ""))
    return "Findings cleared: everyone who may read the packet can read it again, and it may be published and shared."


def _detail_url(packet_id) -> str:
    return reverse("packet-detail", args=[packet_id])


# Shares: what others shared with the viewer (the inbox) and what the viewer shared.


@login_required
def shares_inbox(request):
    return _shares_page(request, shares.IN)


@login_required
def shares_sent(request):
    return _shares_page(request, shares.OUT)


def _shares_page(request, direction: str):
    listed = shares.shares_list(viewer=request.user, direction=direction, limit=shares.MAX_LIMIT)
    context = {"direction": direction, "shares": listed, "limit": shares.MAX_LIMIT}
    return render(request, "packets/shares.html", context)


DISMISS_SHARE = Confirm(
    "Dismiss this share?",
    button="Dismiss",
    message="It leaves your inbox and you can no longer open the packet, unless it reaches you another way.",
)

WITHDRAW_SHARE = Confirm(
    "Withdraw this share?",
    button="Withdraw",
    message="The person you shared it with can no longer open the packet, from their next request on.",
)


@dashboard_action("shares-inbox", confirm=DISMISS_SHARE)
def share_dismiss(request, share_id):
    shares.share_delete(actor=request.user, share_id=share_id)
    return "Share dismissed."


@dashboard_action("shares-sent", confirm=WITHDRAW_SHARE)
def share_withdraw(request, share_id):
    shares.share_delete(actor=request.user, share_id=share_id)
    return "Share withdrawn: they can no longer open the packet."


# The secret scan's review queue: the packets it holds back that the viewer is asked to look at.


@login_required
@require_safe
def findings_page(request):
    """Quarantined packets the viewer pushed, and those of the teams they own or administer
    (?team=NAME: that team's only)."""
    team = _team_asked(request)
    queued = findings.review_queue(viewer=request.user, team=team)
    prefetch_related_objects(queued, "owner")
    context = {"queued": queued, "teams": teams_for_user(viewer=request.user), "team": team}
    return render(request, "packets/findings.html", context)


# The public page of a published packet: /p/<slug> for people, /p/<slug>.json for tools.
#
# Anyone holding the link may read it, with no account: these views never look at the session or
# the user (templates are rendered without the request), so they set no cookie. Packet text is
# untrusted: autoescaped by the templates, and the Content-Security-Policy forbids any script or
# style that is not one of the hub's static files. These pages hold no form, so their policy
# (django-csp, replacing the site-wide one) forbids sending any.

PUBLIC_CSP = {
    "default-src": ["'none'"],
    "style-src": ["'self'"],
    "script-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "base-uri": ["'none'"],
    "form-action": ["'none'"],
    "frame-ancestors": ["'none'"],
}


@csp(PUBLIC_CSP)
@require_safe
def public_packet_page(request, slug):
    try:
        packet = selectors.packet_get_published(slug=slug)
    except NotFound:
        return _public(HttpResponse(render_to_string("packets/public_gone.html"), status=404))
    data = json.loads(packet.body)
    context = {
        "packet": data,
        "chain": _public_chain(packet),
        "page_url": selectors.public_url(request, packet),
        "json_url": reverse("packet-public-json", args=[packet.public_slug]),
        "resume_text": render_resume(data),
        "json_text": packet.body,
        "noindex": settings.LTM_PUBLISH_NOINDEX,
        "shared_by": packet.owner.display_name,
        "published_at": packet.published_at,
        "client_url": hub_url(request) + "/",
    }
    return _public(HttpResponse(render_to_string("packets/public.html", context)))


@csp(PUBLIC_CSP)
@require_safe
def public_packet_json(request, slug):
    try:
        packet = selectors.packet_get_published(slug=slug)
    except NotFound as exc:
        return _public(json_error(exc.message, 404))
    return _public(HttpResponse(packet.body, content_type="application/json"))


def _public_chain(packet: Packet) -> dict:
    """The packet's place in its thread, as the `_packet.html` partial takes it."""
    parent = selectors.packet_published_parent(packet=packet)
    children = selectors.packet_published_children(packet=packet)
    return {
        "parent": _public_chain_link(parent) if parent else None,
        "children": [_public_chain_link(c) for c in children],
    }


def _public_chain_link(packet: Packet) -> dict:
    return {"id": packet.id, "goal": packet.goal, "url": reverse("packet-public", args=[packet.public_slug])}


def _public(response: HttpResponse) -> HttpResponse:
    """Headers every public answer carries."""
    # The URL is the secret: never hand it to another site in a Referer.
    response["Referrer-Policy"] = "no-referrer"
    # An unpublished page must die at once, in proxies too.
    add_never_cache_headers(response)
    if settings.LTM_PUBLISH_NOINDEX or response.status_code == 404:
        response["X-Robots-Tag"] = "noindex"
    return response
