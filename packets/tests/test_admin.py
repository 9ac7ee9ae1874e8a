"""The site admin over packets and the rows around them: it lists and changes, never adds."""

import pytest

from accounts.services import api_token_create
from accounts.testing import make_admin
from core.testing import signed_in
from packets.services import packet_push
from packets.testing import packet_v02
from teams.services import invite_create
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_admin_cannot_add_packets_tokens_or_invites_but_can_list_and_change_them(alice, bob):
    """Those rows are made by the API or the dashboard (hashed secrets, a validated body); an admin
    "Add" form could only make broken ones."""
    make_admin(alice)
    team = make_team(bob, "core")
    packet, _ = packet_push(actor=bob, packet=packet_v02())
    token, _ = api_token_create(actor=bob, name="laptop")
    invite, _ = invite_create(actor=bob, team=team)
    client = signed_in(alice)

    for model, pk in (("packets/packet", packet.pk), ("accounts/apitoken", token.pk), ("teams/invite", invite.pk)):
        assert client.get(f"/admin/{model}/add/").status_code == 403, model
        listing = client.get(f"/admin/{model}/")
        assert listing.status_code == 200, model
        assert f'href="/admin/{model}/add/"' not in listing.content.decode(), model
        assert client.get(f"/admin/{model}/{pk}/change/").status_code == 200, model

    changed = client.post(f"/admin/accounts/apitoken/{token.pk}/change/", {"name": "old laptop", "user": bob.pk})
    assert changed.status_code == 302
    token.refresh_from_db()
    assert token.name == "old laptop"
