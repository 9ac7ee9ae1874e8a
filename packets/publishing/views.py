"""The pages of publishing: a published packet's public page (/p/<slug> for people, /p/<slug>.json
for tools), and the dashboard's Publish and Unpublish buttons."""

import json

from csp.decorators import csp
from django.conf import settings
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

from core.api import json_error
from core.dashboard import Confirm, dashboard_action
from core.errors import NotFound
from core.links import hub_url
from ltm.protocol.resume import render_resume
from packets.models import Packet
from packets.pages import from_packet_page, from_visible_packet
from packets.publishing import selectors, services

UNPUBLISH = Confirm(
    "Take the public page down?",
    button="Unpublish",
    message="The public link stops working at once. Publishing again later makes a new link.",
)


@dashboard_action(from_packet_page)
def packet_publish(request, packet_id):
    packet = services.packet_publish(actor=request.user, packet_id=packet_id)
    return f"Published. Anyone with the link can read it: {selectors.public_url(request, packet)}"


@dashboard_action(from_visible_packet, confirm=UNPUBLISH)
def packet_unpublish(request, packet_id):
    services.packet_unpublish(actor=request.user, packet_id=packet_id)
    return "Unpublished: the public link no longer works."


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
