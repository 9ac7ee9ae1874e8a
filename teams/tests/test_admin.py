"""The site admin over teams: a team keeps exactly one owner, who is one of its members."""

import pytest

from accounts.testing import make_admin
from core.testing import signed_in
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_admin_cannot_add_teams_or_edit_memberships_so_a_team_keeps_one_owner(alice, bob, carol):
    """A second owner or an owner outside the team could only come from the admin: teams are made
    by their services, and ownership moves by transfer."""
    make_admin(alice)
    team = make_team(bob, "core")
    membership = team.memberships.get(user=bob)
    client = signed_in(alice)

    assert client.get("/admin/teams/team/add/").status_code == 403
    assert client.get("/admin/teams/membership/add/").status_code == 403
    assert client.post(f"/admin/teams/membership/{membership.pk}/change/", {"role": "member"}).status_code == 403
    assert client.get(f"/admin/teams/membership/{membership.pk}/delete/").status_code == 403
    page = client.get(f"/admin/teams/team/{team.pk}/change/")
    assert page.status_code == 200
    assert 'name="owner"' not in page.content.decode()  # shown, not editable
    renamed = client.post(
        f"/admin/teams/team/{team.pk}/change/",
        {
            "name": "core2",
            "memberships-TOTAL_FORMS": "1",
            "memberships-INITIAL_FORMS": "1",
            "memberships-MIN_NUM_FORMS": "0",
            "memberships-MAX_NUM_FORMS": "1000",
        },
    )
    assert renamed.status_code == 302
    team.refresh_from_db()
    assert (team.name, team.owner) == ("core2", bob)
    assert list(team.memberships.values_list("user__username", "role")) == [("bob", "owner")]


def test_the_activity_log_is_read_only_in_the_admin(alice, bob):
    from teams.models import TeamEvent
    from teams.services import team_leave

    make_admin(alice)
    team = make_team(bob, "core", members=[alice])
    team_leave(actor=alice, team=team)
    event = TeamEvent.objects.get()
    client = signed_in(alice)
    assert "left" in client.get("/admin/teams/teamevent/").content.decode()
    assert client.post(f"/admin/teams/teamevent/{event.pk}/change/", {"kind": "member.joined"}).status_code == 403
    assert client.get(f"/admin/teams/teamevent/{event.pk}/delete/").status_code == 403
    assert TeamEvent.objects.get().kind == "member.left"
