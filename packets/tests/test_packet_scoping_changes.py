"""Who may change a packet (delete, publish, unpublish, move) and who may share it by name, asked
of every surface that changes or shares packets (the wire API, the dashboard and /mcp), row by row
of the table in packets.testing.scoping; reading is test_packet_scoping.py."""

import pytest
from django.contrib.messages import get_messages

from core.dashboard import CONFIRMED
from core.testing import signed_in
from packets.models import Packet, Share
from packets.testing.scoping import TABLE, api, mcp, world

pytestmark = pytest.mark.django_db


# A change's outcome on each surface: "done", "403" (refused to someone who may read the packet)
# or "404" (refused to anyone else, who learns nothing about it).


def _api(method: str, path: str):
    def change(w, user, make_token):
        status = getattr(api(make_token, user), method)(path.format(id=w.packet.id)).status_code
        return "done" if status in (200, 204) else str(status)

    return change


def _dashboard(action: str, **form):
    def change(w, user, make_token):
        response = signed_in(user).post(f"/packets/{w.packet.id}/{action}", {"confirmed": CONFIRMED, **form})
        if response.status_code == 404:
            return "404"
        refused = any(message.level_tag == "error" for message in get_messages(response.wsgi_request))
        return "403" if refused else "done"

    return change


def _mcp(tool: str):
    def change(w, user, make_token):
        text, is_error = mcp(make_token, user)(tool, id=w.packet.id)
        if not is_error:
            return "done"
        return "404" if text == "packet not found" else "403"

    return change


# Each surface: how it changes the packet, and the packet's state after a change (the world's
# packet is published first for an unpublish, so that the change shows).
CHANGES = {
    "api delete": (_api("delete", "/v1/packets/{id}"), "deleted"),
    "api publish": (_api("post", "/v1/packets/{id}/publish"), "published"),
    "api unpublish": (_api("delete", "/v1/packets/{id}/publish"), "not published"),
    "dashboard delete": (_dashboard("delete"), "deleted"),
    "dashboard publish": (_dashboard("publish"), "published"),
    "dashboard unpublish": (_dashboard("unpublish"), "not published"),
    "mcp rm": (_mcp("rm"), "deleted"),
    "mcp publish": (_mcp("publish"), "published"),
    "mcp unpublish": (_mcp("unpublish"), "not published"),
}


def _state(packet_id: str) -> str:
    packet = Packet.objects.filter(pk=packet_id).first()
    if packet is None:
        return "deleted"
    return "published" if packet.public_slug else "not published"


@pytest.mark.parametrize("surface", CHANGES)
@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_changes_as_the_table_says(row, surface, make_user, make_token):
    change, effect = CHANGES[surface]
    w = world(make_user, row.kind, published=effect == "not published")
    before = _state(w.packet.id)
    outcome = change(w, w.actor(row), make_token)
    if row.may_change:
        assert (outcome, _state(w.packet.id)) == ("done", effect)
    else:
        assert (outcome, _state(w.packet.id)) == ("403" if row.may_read else "404", before)


@pytest.mark.parametrize("row", TABLE, ids=str)
def test_the_dashboard_moves_as_the_table_says(row, make_user):
    """Moving a packet out of its scope (a team packet to personal, a personal one into the team):
    its creator only, of what they may change. Someone who may read it but not move it is told so."""
    w = world(make_user, row.kind)
    to = "team:crew" if w.team_name is None else "personal"
    outcome = _dashboard("move", to=to)(w, w.actor(row), None)
    moved = Packet.objects.get(pk=w.packet.id).team_id != w.packet.team_id
    if row.may_move:
        assert (outcome, moved) == ("done", True)
    else:
        assert (outcome, moved) == ("403" if row.may_read else "404", False)


# Sharing with a person by name: "done" (the target now has the packet from the actor), "403"
# (refused to someone who may read the packet) or "404" (refused to anyone else).


def _api_share(w, user, make_token):
    response = api(make_token, user).post(
        f"/v1/packets/{w.packet.id}/shares", data={"to": "target"}, content_type="application/json"
    )
    return "done" if response.status_code == 201 else str(response.status_code)


def _dashboard_share(w, user, make_token):
    response = signed_in(user).post(f"/packets/{w.packet.id}/share", {"to": "target"})
    if response.status_code == 404:
        return "404"
    refused = any(message.level_tag == "error" for message in get_messages(response.wsgi_request))
    return "403" if refused else "done"


def _mcp_share(w, user, make_token):
    text, is_error = mcp(make_token, user)("share", id=w.packet.id, to="target")
    if not is_error:
        return "done"
    return "404" if text == "packet not found" else "403"


SHARES = {"api share": _api_share, "dashboard share": _dashboard_share, "mcp share": _mcp_share}


@pytest.mark.parametrize("surface", SHARES)
@pytest.mark.parametrize("row", TABLE, ids=str)
def test_every_surface_shares_as_the_table_says(row, surface, make_user, make_token):
    w = world(make_user, row.kind)
    user = w.actor(row)
    outcome = SHARES[surface](w, user, make_token)
    shared = Share.objects.filter(packet_id=w.packet.id, sender=user, recipient=w.people["target"]).exists()
    if row.may_share:
        assert (outcome, shared) == ("done", True)
    else:
        assert (outcome, shared) == ("403" if row.may_read else "404", False)
