"""The dashboard's list of packets: the signed-in home page, filtered or searched."""

from django.core.paginator import Paginator
from django.db.models import prefetch_related_objects
from django.shortcuts import render

from core.errors import NotFound
from core.links import hub_url
from packets import selectors
from packets.forms import PacketFilterForm, scope_team_name
from packets.models import Packet
from packets.search.selectors import MAX_LIMIT as SEARCH_MAX_LIMIT
from packets.search.selectors import search_packets
from packets.sharing.selectors import shared_by
from teams.selectors import teams_for_user

PAGE_SIZE = 20


def home(request):
    """Signed in: the person's packets. Signed out: what the hub is and how to connect to it."""
    if not request.user.is_authenticated:
        return render(request, "home.html", {"hub_url": hub_url(request)})
    teams = list(teams_for_user(viewer=request.user))
    form = PacketFilterForm(request.GET or None, teams=teams)
    filters = form.search_arguments()
    text, mode = filters.pop("text", ""), filters.pop("mode", "hybrid")
    packets = (
        _matches(request, text, mode, filters)
        if text.strip()
        else selectors.packet_search(viewer=request.user, **filters)
    )
    page = Paginator(packets, PAGE_SIZE).get_page(request.GET.get("page"))
    # A packet someone shared with the viewer says so, rather than "personal" (it is not theirs).
    senders = shared_by(viewer=request.user, packet_ids=[packet.id for packet in page])
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


# How a result matched, as the list says it (Hit.matched).
MATCHED = {("keyword",): "words", ("semantic",): "meaning", ("keyword", "semantic"): "words and meaning"}


def _matches(request, text: str, mode: str, filters: dict) -> list[Packet]:
    """The best matches of a search, each with its goal and snippet cut into marked pieces and
    how it matched."""
    try:
        hits = search_packets(
            viewer=request.user,
            text=text,
            team_name=filters["team_name"] or None,
            personal=filters["personal"],
            tag=filters["tag"],
            project=filters["project"],
            limit=SEARCH_MAX_LIMIT,
            mode=mode,
        )
    except NotFound:  # a team the viewer has just left
        return []
    packets = []
    for hit in hits:
        hit.packet.goal_marks, hit.packet.snippet_marks = hit.goal, hit.snippet
        hit.packet.matched = MATCHED.get(hit.matched, "")
        packets.append(hit.packet)
    prefetch_related_objects(packets, "team", "owner")
    return packets
