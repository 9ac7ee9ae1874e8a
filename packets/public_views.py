"""The public page of a published packet: /p/<slug> for people, /p/<slug>.json for tools.

Anyone holding the link may read it, with no account: these views never look at the session or
the user (templates are rendered without the request), so they set no cookie. Packet text is
untrusted: autoescaped by the templates, and the Content-Security-Policy forbids any script or
style that is not one of the hub's static files.
"""

import json

from django.conf import settings
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_safe

from hub.api import json_error
from hub.errors import NotFound
from hub.links import external_url
from ltm.protocol.resume import render_resume
from packets import selectors
from packets.models import Packet

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def public_url(request, packet: Packet) -> str:
    """The absolute URL of a published packet's page."""
    return external_url(request, reverse("packet-public", args=[packet.public_slug]))


@require_safe
def packet_page(request, slug):
    try:
        packet = selectors.packet_get_published(slug=slug)
    except NotFound:
        return _public(HttpResponse(render_to_string("packets/public_gone.html"), status=404))
    data = json.loads(packet.body)
    context = {
        "packet": data,
        "chain": _chain(packet),
        "page_url": public_url(request, packet),
        "json_url": reverse("packet-public-json", args=[packet.public_slug]),
        "resume_text": render_resume(data),
        "json_text": packet.body,
        "noindex": settings.LTM_PUBLISH_NOINDEX,
    }
    return _public(HttpResponse(render_to_string("packets/public.html", context)))


@require_safe
def packet_json(request, slug):
    try:
        packet = selectors.packet_get_published(slug=slug)
    except NotFound as exc:
        return _public(json_error(exc.message, 404))
    return _public(HttpResponse(packet.body, content_type="application/json"))


def _chain(packet: Packet) -> dict:
    """The packet's place in its thread, as the `_packet.html` partial takes it."""
    parent = selectors.packet_published_parent(packet=packet)
    children = selectors.packet_published_children(packet=packet)
    return {"parent": _chain_link(parent) if parent else None, "children": [_chain_link(c) for c in children]}


def _chain_link(packet: Packet) -> dict:
    return {"id": packet.id, "goal": packet.goal, "url": reverse("packet-public", args=[packet.public_slug])}


def _public(response: HttpResponse) -> HttpResponse:
    """Headers every public answer carries."""
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    # The URL is the secret: never hand it to another site in a Referer.
    response["Referrer-Policy"] = "no-referrer"
    # An unpublished page must die at once, in proxies too.
    add_never_cache_headers(response)
    if settings.LTM_PUBLISH_NOINDEX or response.status_code == 404:
        response["X-Robots-Tag"] = "noindex"
    return response
