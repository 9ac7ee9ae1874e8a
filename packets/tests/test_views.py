"""The dashboard's packet pages: the list (home), a packet's page and its actions, with rights."""

import json

import pytest
from django.test import Client

from core.testing import signed_in
from packets.models import Packet
from packets.testing import packet_v02, push_packet, store_directly
from teams.services import team_create
from teams.testing import make_team


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member."""
    return make_team(alice, "core", members=[bob])


def listed_ids(response) -> list[str]:
    return [packet.id for packet in response.context["page"].object_list]


# The list


def test_signed_out_visitors_get_the_landing_page_with_the_auth_command(client):
    response = client.get("/")
    assert response.status_code == 200
    assert '<pre class="cmd">ltm auth http://testserver</pre>' in response.content.decode()
    assert 'href="/client/"' in response.content.decode()
    assert "page" not in response.context


def test_the_auth_command_names_the_configured_external_url(client, alice, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    assert "ltm auth https://hub.example.org</pre>" in client.get("/").content.decode()
    assert "ltm auth https://hub.example.org</pre>" in signed_in(alice).get("/").content.decode()


def test_list_shows_personal_and_team_packets_newest_first_and_nothing_else(alice, bob, carol, team):
    old = push_packet(alice, created_at="2026-01-01T00:00:00Z", goal="old personal")
    new = push_packet(alice, created_at="2026-03-01T00:00:00Z", goal="new personal")
    teammate = push_packet(bob, team=team, created_at="2026-02-01T00:00:00Z", goal="bob in core")
    push_packet(bob, created_at="2026-04-01T00:00:00Z", goal="bob personal secret")
    push_packet(carol, created_at="2026-04-01T00:00:00Z", goal="carol secret")

    response = signed_in(alice).get("/")

    assert response.status_code == 200
    assert listed_ids(response) == [new.id, teammate.id, old.id]
    assert "secret" not in response.content.decode()


def test_empty_list_says_how_to_connect_the_client(alice):
    body = signed_in(alice).get("/").content.decode()
    assert "No packets yet" in body
    assert 'href="/client/"' in body
    assert "ltm auth http://testserver" in body


@pytest.mark.parametrize(
    "query, expected",
    [
        ("scope=personal", ["mine"]),
        ("scope=team:core", ["team-note"]),
        ("tag=db", ["team-note"]),
        ("tag=d", []),  # whole tags only
        ("project=billing", ["mine"]),
        ("q=MIGRATION&mode=keyword", ["team-note"]),  # goal, any case (by words alone)
        ("q=rollback&mode=keyword", ["mine"]),  # next step
        ("scope=team:core&tag=ui", []),
    ],
)
def test_list_filters(alice, team, query, expected):
    push_packet(alice, goal="mine", next_step="Plan the rollback.", project={"name": "billing"}, tags=["ui"])
    push_packet(
        alice,
        team=team,
        goal="team-note: the migration",
        next_step="Ship it.",
        project={"name": "infra"},
        tags=["db", "ops"],
    )

    response = signed_in(alice).get("/?" + query)

    goals = [packet.goal.split(":")[0] for packet in response.context["page"].object_list]
    assert goals == expected


def test_filtering_by_a_team_the_viewer_is_not_in_shows_nothing_of_it(alice, carol, team):
    push_packet(alice, team=team, goal="core business")
    response = signed_in(carol).get("/?scope=team:core")
    assert response.status_code == 200
    assert "core business" not in response.content.decode()
    assert listed_ids(response) == []


def test_list_is_paginated_twenty_per_page(alice):
    for day in range(1, 26):
        push_packet(alice, created_at=f"2026-01-{day:02d}T00:00:00Z", goal=f"day {day}")
    client = signed_in(alice)

    first = client.get("/")
    second = client.get("/?page=2")

    assert len(listed_ids(first)) == 20
    assert [p.goal for p in second.context["page"].object_list] == [f"day {d}" for d in range(5, 0, -1)]
    assert 'href="?page=2"' in first.content.decode()


# A packet's page


def test_packet_page_shows_the_packet_resume_block_and_json(alice):
    packet = push_packet(alice, goal="Make <the> importer idempotent")
    response = signed_in(alice).get(f"/packets/{packet.id}")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Make &lt;the&gt; importer idempotent" in body  # escaped, never raw
    assert "# Resume from ltm packet" in body
    assert 'id="packet-json"' in body
    assert 'data-copy-target="resume-block"' in body
    assert f'href="/packets/{packet.id}.json"' in body


def test_packet_page_of_someone_elses_packet_is_404(alice, bob):
    packet = push_packet(bob)
    assert signed_in(alice).get(f"/packets/{packet.id}").status_code == 404
    assert signed_in(alice).get(f"/packets/{packet.id}.json").status_code == 404
    assert signed_in(alice).get("/packets/nope-nope-nope").status_code == 404


def test_a_team_packet_is_404_to_someone_outside_the_team(alice, carol, team):
    packet = push_packet(alice, team=team, goal="core business")
    outsider = signed_in(carol)
    assert outsider.get(f"/packets/{packet.id}").status_code == 404
    assert outsider.get(f"/packets/{packet.id}.json").status_code == 404
    for action in ("publish", "unpublish", "delete", "move"):
        assert (
            outsider.post(f"/packets/{packet.id}/{action}", {"confirmed": "yes", "to": "personal"}).status_code == 404
        )
    packet.refresh_from_db()
    assert (packet.team, packet.public_slug) == (team, None)


def test_packet_pages_need_a_signed_in_person(client, alice):
    packet = push_packet(alice)
    response = client.get(f"/packets/{packet.id}")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_team_members_see_team_packets(alice, bob, team):
    packet = push_packet(alice, team=team, goal="for the team")
    assert signed_in(bob).get(f"/packets/{packet.id}").status_code == 200


def test_download_is_the_stored_json_as_an_attachment(alice):
    packet = push_packet(alice)
    response = signed_in(alice).get(f"/packets/{packet.id}.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == f'attachment; filename="ltm-{packet.id}.json"'
    assert response.content.decode() == packet.body


# Publish and unpublish


def test_publish_then_unpublish_after_confirming(alice):
    packet = push_packet(alice)
    client = signed_in(alice)

    response = client.post(f"/packets/{packet.id}/publish", follow=True)
    packet.refresh_from_db()
    assert packet.public_slug
    assert f"http://testserver/p/{packet.public_slug}" in response.content.decode()

    asked = client.post(f"/packets/{packet.id}/unpublish")
    assert asked.status_code == 200 and b"Take the public page down?" in asked.content
    packet.refresh_from_db()
    assert packet.public_slug, "nothing happens before the confirmation"

    client.post(f"/packets/{packet.id}/unpublish", {"confirmed": "yes"})
    packet.refresh_from_db()
    assert packet.public_slug is None


def test_a_member_cannot_publish_someone_elses_team_packet(alice, bob, team):
    packet = push_packet(alice, team=team)
    response = signed_in(bob).post(f"/packets/{packet.id}/publish", follow=True)
    packet.refresh_from_db()
    assert packet.public_slug is None
    assert "only the packet&#x27;s creator or the team owner" in response.content.decode()


def test_a_member_cannot_unpublish_someone_elses_team_packet(alice, bob, team):
    packet = push_packet(alice, team=team)
    signed_in(alice).post(f"/packets/{packet.id}/publish")
    packet.refresh_from_db()
    slug = packet.public_slug
    assert slug

    response = signed_in(bob).post(f"/packets/{packet.id}/unpublish", {"confirmed": "yes"}, follow=True)

    packet.refresh_from_db()
    assert packet.public_slug == slug
    assert "only the packet&#x27;s creator or the team owner" in response.content.decode()
    assert Client().get(f"/p/{slug}").status_code == 200


def test_action_buttons_follow_the_rights(alice, bob, team):
    packet = push_packet(alice, team=team)
    owner_page = signed_in(alice).get(f"/packets/{packet.id}").content.decode()
    member_page = signed_in(bob).get(f"/packets/{packet.id}").content.decode()
    for action in ("publish", "delete", "move"):
        assert f"/packets/{packet.id}/{action}" in owner_page
        assert f"/packets/{packet.id}/{action}" not in member_page


def test_packet_page_groups_its_actions_and_marks_criteria_as_criteria(alice, bob, team):
    packet = push_packet(alice, team=team)
    owner_page = signed_in(alice).get(f"/packets/{packet.id}").content.decode()
    copy_group, manage_group = owner_page.split('class="action-group manage"')
    assert 'data-copy-target="resume-block"' in copy_group
    for action in ("publish", "move", "delete"):
        assert f"/packets/{packet.id}/{action}" in manage_group
    assert 'class="packet-list criteria"' in owner_page  # a neutral marker, not a green tick
    member_page = signed_in(bob).get(f"/packets/{packet.id}").content.decode()
    assert "action-group manage" not in member_page  # nothing to manage: no empty group


# Delete


def test_delete_asks_first_then_deletes(alice):
    packet = push_packet(alice)
    client = signed_in(alice)

    asked = client.post(f"/packets/{packet.id}/delete")
    assert asked.status_code == 200 and b"Delete this packet?" in asked.content
    assert b'name="confirmed" value="yes"' in asked.content
    assert Packet.objects.filter(pk=packet.id).exists()

    done = client.post(f"/packets/{packet.id}/delete", {"confirmed": "yes"})
    assert done.status_code == 302 and done["Location"] == "/"
    assert not Packet.objects.filter(pk=packet.id).exists()


def test_the_team_owner_may_delete_a_members_packet_but_a_member_not_the_owners(alice, bob, team):
    owners = push_packet(alice, team=team)
    members = push_packet(bob, team=team)

    refused = signed_in(bob).post(f"/packets/{owners.id}/delete", {"confirmed": "yes"}, follow=True)
    assert "only the packet&#x27;s creator or the team owner" in refused.content.decode()
    assert Packet.objects.filter(pk=owners.id).exists()

    signed_in(alice).post(f"/packets/{members.id}/delete", {"confirmed": "yes"})
    assert not Packet.objects.filter(pk=members.id).exists()


def test_deleting_a_strangers_packet_is_404(alice, carol):
    packet = push_packet(alice)
    response = signed_in(carol).post(f"/packets/{packet.id}/delete", {"confirmed": "yes"})
    assert response.status_code == 404
    assert Packet.objects.filter(pk=packet.id).exists()


@pytest.mark.parametrize("action", ["publish", "unpublish", "delete", "move"])
@pytest.mark.parametrize("data", [{}, {"confirmed": "yes", "to": "personal"}])
def test_every_action_on_a_strangers_packet_is_404_even_before_confirming(alice, carol, action, data):
    packet = push_packet(alice)
    response = signed_in(carol).post(f"/packets/{packet.id}/{action}", data)
    assert response.status_code == 404
    assert Packet.objects.get(pk=packet.id).owner == alice


def test_forms_need_the_csrf_token(alice):
    packet = push_packet(alice)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(f"/packets/{packet.id}/delete", {"confirmed": "yes"}).status_code == 403
    assert Packet.objects.filter(pk=packet.id).exists()


# Move


def test_move_between_personal_and_a_team_leaves_the_body_alone(alice, team):
    packet = push_packet(alice)
    body = packet.body
    client = signed_in(alice)

    client.post(f"/packets/{packet.id}/move", {"to": "team:core"})
    packet.refresh_from_db()
    assert packet.team == team and packet.body == body

    client.post(f"/packets/{packet.id}/move", {"to": "personal"})
    packet.refresh_from_db()
    assert packet.team is None and packet.body == body


def test_only_the_creator_moves_a_packet(alice, bob, team):
    packet = push_packet(alice, team=team)
    response = signed_in(bob).post(f"/packets/{packet.id}/move", {"to": "personal"}, follow=True)
    packet.refresh_from_db()
    assert packet.team == team
    assert "only the packet&#x27;s creator can move it" in response.content.decode()


def test_moving_into_a_team_one_is_not_in_is_refused(alice, carol):
    team_create(actor=carol, name="elsewhere")
    packet = push_packet(alice)
    response = signed_in(alice).post(f"/packets/{packet.id}/move", {"to": "team:elsewhere"}, follow=True)
    packet.refresh_from_db()
    assert packet.team is None
    assert "You are not a member of that team." in response.content.decode()


def test_move_needs_a_target(alice):
    packet = push_packet(alice)
    response = signed_in(alice).post(f"/packets/{packet.id}/move", {"to": "mars"}, follow=True)
    assert "Choose where to move the packet." in response.content.decode()
    assert json.loads(Packet.objects.get(pk=packet.id).body)["id"] == packet.id


def test_a_stored_id_holding_a_slash_is_listed_opened_and_deleted(alice):
    """A packet stored before ids were restricted: the dashboard still links to and acts on it."""
    store_directly(alice, packet_v02(id="01SLASHED/PACKET/0001"))
    client = signed_in(alice)
    listing = client.get("/")
    assert listing.status_code == 200
    assert b"/packets/01SLASHED/PACKET/0001" in listing.content
    assert client.get("/packets/01SLASHED/PACKET/0001").status_code == 200
    assert client.get("/packets/01SLASHED/PACKET/0001.json").status_code == 200
    response = client.post("/packets/01SLASHED/PACKET/0001/delete", {"confirmed": "yes"})
    assert response.status_code == 302
    assert not Packet.objects.filter(pk="01SLASHED/PACKET/0001").exists()


def test_an_empty_list_shows_how_to_connect_an_agent_with_this_hubs_url(alice):
    body = signed_in(alice).get("/").content.decode()
    assert "claude mcp add --transport http ltm http://testserver/mcp" in body
    assert 'href="/docs/how-to/connect-an-agent/"' in body
