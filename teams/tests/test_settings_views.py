"""The team page's settings, the owner's and admins': sharing outside the team and the secret scan
(the second factor is test_second_factor.py)."""

import pytest

from core.testing import signed_in
from teams.models import Membership, Team, TeamEvent
from teams.testing import make_team


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member."""
    return make_team(alice, "core", members=[bob])


def is_member(user, team) -> bool:
    return Membership.objects.filter(team=team, user=user).exists()


# Sharing outside the team: a setting of the owner and admins


def test_the_owner_and_admins_see_the_sharing_setting_and_a_member_does_not(alice, bob, carol, team):
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    for manager in (alice, carol):
        page = signed_in(manager).get("/teams/core").content.decode()
        assert 'id="sharing"' in page and 'action="/teams/core/sharing/allow"' in page
    assert 'id="sharing"' not in signed_in(bob).get("/teams/core").content.decode()


def test_an_admin_turns_sharing_outside_on_then_off_after_confirming(alice, carol, team):
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    admin = signed_in(carol)
    response = admin.post("/teams/core/sharing/allow", follow=True)
    assert response.redirect_chain == [("/teams/core", 302)]
    assert "Members may now share core&#x27;s packets with people outside the team." in response.content.decode()
    assert Team.objects.get(name="core").share_outside
    assert 'action="/teams/core/sharing/stop"' in response.content.decode()

    asked = admin.post("/teams/core/sharing/stop")
    assert asked.status_code == 200 and asked.context["title"] == "Stop sharing core's packets outside the team?"
    assert Team.objects.get(name="core").share_outside
    admin.post("/teams/core/sharing/stop", {"confirmed": "yes"})
    assert not Team.objects.get(name="core").share_outside
    kinds = TeamEvent.objects.filter(team=team, kind=TeamEvent.SETTINGS_CHANGED).values_list("detail", flat=True)
    assert [detail["share_outside"] for detail in kinds.order_by("id")] == [True, False]


def test_a_member_is_refused_the_setting_with_a_message(bob, team):
    response = signed_in(bob).post("/teams/core/sharing/allow", follow=True)
    assert response.status_code == 200
    assert [str(m) for m in response.context["messages"]] == ["only the team owner or an admin can do this"]
    assert not Team.objects.get(name="core").share_outside


@pytest.mark.parametrize("action", ["allow", "stop"])
def test_a_stranger_gets_404_on_the_sharing_setting(carol, team, action):
    assert signed_in(carol).post(f"/teams/core/sharing/{action}", {"confirmed": "yes"}).status_code == 404


# The secret scan: a setting of the owner and admins, stricter than the hub's only


def test_the_owner_and_admins_see_the_secret_scan_setting_and_a_member_does_not(alice, bob, carol, team):
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    for manager in (alice, carol):
        page = signed_in(manager).get("/teams/core").content.decode()
        assert 'id="secret-scan"' in page and 'action="/teams/core/secret-scan"' in page
        assert "This hub's own level is <strong>flag</strong>; a team may only be stricter" in page
        assert 'href="/findings?team=core"' in page
    assert 'id="secret-scan"' not in signed_in(bob).get("/teams/core").content.decode()


def test_the_choices_are_the_hubs_level_and_stricter_ones(alice, team, settings):
    def choices():
        return [value for value, _ in signed_in(alice).get("/teams/core").context["secret_scan"]["choices"]]

    settings.LTM_SECRET_SCAN = "off"
    assert choices() == ["off", "flag", "refuse"]
    settings.LTM_SECRET_SCAN = "flag"
    assert choices() == ["flag", "refuse"]
    settings.LTM_SECRET_SCAN = "refuse"
    assert choices() == ["refuse"]
    assert 'action="/teams/core/secret-scan"' not in signed_in(alice).get("/teams/core").content.decode()


def test_an_admin_makes_the_scan_refuse_and_the_log_says_so(alice, carol, team):
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    response = signed_in(carol).post("/teams/core/secret-scan", {"secret_scan": "refuse"}, follow=True)
    assert response.redirect_chain == [("/teams/core", 302)]
    assert [str(m) for m in response.context["messages"]] == [
        "core's secret scan is now refuse: a packet that looks like it carries secrets is refused, and nothing is stored."
    ]
    assert Team.objects.get(name="core").secret_scan == "refuse"
    assert 'id="secret-scan-state">refuse<' in response.content.decode()
    [event] = TeamEvent.objects.filter(team=team, kind=TeamEvent.SETTINGS_CHANGED)
    assert event.actor == carol and event.detail == {"secret_scan": "refuse"}


def test_a_looser_scan_than_the_hubs_is_refused_with_a_message(alice, team, settings):
    settings.LTM_SECRET_SCAN = "refuse"
    response = signed_in(alice).post("/teams/core/secret-scan", {"secret_scan": "flag"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "this hub's secret scan is 'refuse'; a team may only be stricter (refuse)"
    ]
    assert Team.objects.get(name="core").secret_scan == ""


def test_a_member_is_refused_the_secret_scan_setting_with_a_message(bob, team):
    response = signed_in(bob).post("/teams/core/secret-scan", {"secret_scan": "refuse"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["only the team owner or an admin can do this"]
    assert Team.objects.get(name="core").secret_scan == ""


def test_a_stranger_gets_404_on_the_secret_scan_setting(carol, team):
    assert signed_in(carol).post("/teams/core/secret-scan", {"secret_scan": "refuse"}).status_code == 404
