"""What the packet's surfaces share, the subjects' included: a packet's page address, where the
actions on its page start, and the team a page or an API call is asked about (?team=NAME)."""

from django.http import Http404
from django.urls import reverse

from core.errors import NotFound
from packets import selectors
from teams.selectors import team_get_for_member


def detail_url(packet_id) -> str:
    return reverse("packet-detail", args=[packet_id])


def from_packet_page(request, packet_id):
    """Where a packet's actions start: its page. Publishing, which asks nothing, leaves the rights
    to the service."""
    return detail_url(packet_id), {"packet_id": packet_id}


def from_visible_packet(request, packet_id):
    """As `from_packet_page`, for the actions with a question or a form: someone else's packet is a
    404 before either (one the secret scan holds back from the viewer is not: the service says
    what they may do with it)."""
    if not selectors.packet_known(viewer=request.user, packet_id=packet_id):
        raise Http404("packet not found")
    return from_packet_page(request, packet_id)


def team_asked(request):
    """The team named by ?team=NAME (None without one); a 404 unless the viewer is a member."""
    if not request.GET.get("team"):
        return None
    try:
        return team_get_for_member(viewer=request.user, name=request.GET["team"])
    except NotFound as exc:
        raise Http404(exc.message) from None


def team_named(viewer, name: str | None):
    """The team `name` names for the API (None for no name); NotFound unless the viewer is a member."""
    return team_get_for_member(viewer=viewer, name=name) if name is not None else None
