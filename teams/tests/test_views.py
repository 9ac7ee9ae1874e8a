"""The dashboard's team pages: list and create, a team's page and its activity, deleting the team,
the tables on narrow screens and the account page's teams. Invites and members are
test_member_views.py; the settings test_settings_views.py."""

import re

import pytest

from accounts.models import User
from accounts.services import api_token_create
from core.testing import signed_in
from teams.models import Invite, Membership, Team, TeamEvent
from teams.services import invite_create, team_create
from teams.testing import make_team


@pytest.fixture
def team(alice, bob):
    """Team "core": alice owns it, bob is a member."""
    return make_team(alice, "core", members=[bob])


def is_member(user, team) -> bool:
    return Membership.objects.filter(team=team, user=user).exists()


# List and create


def test_team_list_shows_the_viewers_teams_only(alice, carol, team):
    team_create(actor=carol, name="carols-secret-team")
    body = signed_in(alice).get("/teams").content.decode()
    assert 'href="/teams/core"' in body
    assert "carols-secret-team" not in body


def test_team_list_without_teams_says_what_to_do(carol):
    body = signed_in(carol).get("/teams").content.decode()
    assert "You are not in any team yet." in body
    assert "Create a team" in body


def test_create_a_team_and_land_on_its_page(alice):
    response = signed_in(alice).post("/teams", {"name": "platform"})
    assert response.status_code == 302 and response["Location"] == "/teams/platform"
    team = Team.objects.get(name="platform")
    assert Membership.objects.get(team=team, user=alice).role == Membership.OWNER


@pytest.mark.parametrize(
    "name, message", [("Bad Name", "a team name is 1 to 40 characters"), ("core", "already taken")]
)
def test_create_refuses_bad_or_taken_names_with_the_services_message(alice, team, name, message):
    response = signed_in(alice).post("/teams", {"name": name})
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/teams"),
        ("get", "/teams/core"),
        ("post", "/teams/core/invites"),
        ("post", "/teams/core/delete"),
    ],
)
def test_team_pages_need_a_signed_in_person(client, team, method, path):
    response = getattr(client, method)(path, {"confirm_name": "core"} if method == "post" else {})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
    assert Team.objects.filter(name="core").exists() and not Invite.objects.exists()


# A team's page


def test_team_page_lists_members_with_roles_and_pending_invites(alice, bob, team):
    invite_create(actor=bob, team=team)
    response = signed_in(alice).get("/teams/core")
    body = response.content.decode()
    assert response.status_code == 200
    assert [m.user.username for m in response.context["members"]] == ["alice", "bob"]
    assert [m.role for m in response.context["members"]] == ["owner", "member"]
    assert len(response.context["invites"]) == 1
    assert "Invites" in body and "bob" in body


@pytest.mark.parametrize(
    "path",
    [
        "/teams/core",
        "/teams/nope",
        "/teams/core/activity",
    ],
)
def test_a_stranger_gets_404_on_team_pages(carol, team, path):
    assert signed_in(carol).get(path).status_code == 404


@pytest.mark.parametrize(
    "path, data",
    [
        ("/teams/core/invites", {}),
        ("/teams/core/leave", {"confirmed": "yes"}),
        ("/teams/core/delete", {"confirm_name": "core"}),
        ("/teams/core/transfer", {"new_owner_id": "x", "confirmed": "yes"}),
        ("/teams/core/members/x/remove", {"confirmed": "yes"}),
        ("/teams/core/invites/x/revoke", {"confirmed": "yes"}),
        ("/teams/core/invites/x/resend", {}),
        ("/teams/core/members/x/role", {"role": "admin"}),
        ("/teams/core/transfer/accept", {}),
        ("/teams/core/transfer/cancel", {}),
    ],
)
def test_a_stranger_gets_404_on_team_actions(carol, team, path, data):
    assert signed_in(carol).post(path, data).status_code == 404
    assert Team.objects.filter(name="core").exists()


def test_owner_sees_owner_actions_and_a_member_sees_leave(alice, bob, team):
    owner_page = signed_in(alice).get("/teams/core").content.decode()
    member_page = signed_in(bob).get("/teams/core").content.decode()
    assert "/teams/core/delete" in owner_page and f"/teams/core/members/{bob.pk}/remove" in owner_page
    assert "/teams/core/leave" not in owner_page
    assert "/teams/core/delete" not in member_page and "/remove" not in member_page
    assert "/teams/core/leave" in member_page


def test_a_member_sees_the_invite_link_form_as_a_sentence_of_its_own(alice, bob, team):
    """The e-mail form is the managers' only; the link form must not start "Or" without it."""
    owner_page = signed_in(alice).get("/teams/core").content.decode()
    member_page = signed_in(bob).get("/teams/core").content.decode()
    assert "Invite by e-mail" in owner_page and "Or a link to send yourself" in owner_page
    assert "Invite by e-mail" not in member_page and "Or a link" not in member_page
    assert "Invite with a link you send yourself" in member_page


def test_the_ownership_question_names_each_member(alice, bob, carol, team):
    """The dialog asks about the person whose button was pressed: display name, else username."""
    Membership.objects.create(team=team, user=carol, role=Membership.ADMIN)
    User.objects.filter(pk=carol.pk).update(display="Carol Jones")
    page = signed_in(alice).get("/teams/core").content.decode()
    assert "this member" not in page
    offers = re.findall(
        r'data-confirm="([^"?]*)\?[^"]*">\s*<input [^>]*>\s*<input type="hidden" name="new_owner_id" value="([^"]+)"',
        page,
    )
    assert {user_id: question for question, user_id in offers} == {
        bob.pk: "Offer the ownership of core to bob",
        carol.pk: "Offer the ownership of core to Carol Jones",
    }


def log(team, actor, *kinds):
    for kind in kinds:
        TeamEvent.objects.create(team=team, actor=actor, actor_name=actor.username, kind=kind)


@pytest.mark.parametrize(
    "query", ["before=x", "before=-1", "before=1.5", "before=" + "9" * 30, "before=%EF%BC%95", "kind=nope"]
)
def test_the_activity_page_ignores_a_filter_it_cannot_read(alice, team, query):
    log(team, alice, "member.joined", "member.left")
    response = signed_in(alice).get(f"/teams/core/activity?{query}")
    assert response.status_code == 200
    assert (response.context["kind"], response.context["paged"]) == ("", False)
    assert len(response.context["events"]) == 2  # the newest page, as without the filter


def test_the_activity_page_keeps_a_good_filter_beside_a_bad_one(alice, team):
    log(team, alice, "member.joined", "member.left")
    response = signed_in(alice).get("/teams/core/activity?kind=member.joined&before=x")
    assert (response.context["kind"], response.context["paged"]) == ("member.joined", False)
    assert {event.kind for event in response.context["events"]} == {"member.joined"}


# Delete


def test_delete_needs_the_teams_name_typed(alice, team):
    response = signed_in(alice).post("/teams/core/delete", {"confirm_name": "cor"}, follow=True)
    assert Team.objects.filter(name="core").exists()
    assert "Type the team&#x27;s name, core, to delete it." in response.content.decode()


def test_a_member_cannot_delete_the_team(bob, team):
    response = signed_in(bob).post("/teams/core/delete", {"confirm_name": "core"}, follow=True)
    assert Team.objects.filter(name="core").exists()
    assert "only the team owner can do this" in response.content.decode()


def test_every_cell_of_the_team_pages_tables_has_its_label_for_narrow_screens(alice, team):
    """On a phone the column headings are hidden; each cell names its column (data-label)."""
    invite_create(actor=alice, team=team)
    api_token_create(actor=alice, name="laptop")
    client = signed_in(alice)
    for path in (f"/teams/{team.name}", "/teams", "/tokens"):
        body = client.get(path).content.decode()
        cells = re.findall(r"<td[^>]*>", body)
        assert cells, path
        for cell in cells:
            assert "data-label=" in cell or 'class="row-actions"' in cell, (path, cell)


# The account page: deleting an account waits for the teams it owns


def test_account_deletion_is_blocked_while_owning_teams_and_the_page_lists_them(alice):
    team_create(actor=alice, name="core")
    client = signed_in(alice)

    page = client.get("/account").content.decode()
    assert "Transfer it to another member or delete it first" in page
    assert 'href="/teams/core"' in page

    response = client.post("/account/delete", {"confirmed": "yes"}, follow=True)
    assert User.objects.filter(pk=alice.pk).exists()
    assert "transfer or delete the teams you own" in response.content.decode()


@pytest.mark.parametrize("viewer_role", [Membership.OWNER, Membership.ADMIN, Membership.MEMBER])
@pytest.mark.parametrize("member_role", [Membership.OWNER, Membership.ADMIN, Membership.MEMBER])
def test_a_remove_button_is_shown_exactly_where_removing_works(make_user, viewer_role, member_role):
    """The team page asks the service's own rule: a button that is shown works, and a removal
    that would work has its button."""
    owner, viewer, member = make_user("olga"), make_user("vera"), make_user("mike")
    team = make_team(owner, "roles")
    Membership.objects.filter(team=team, user=owner).delete()
    Membership.objects.create(team=team, user=viewer, role=viewer_role)
    if member_role != Membership.OWNER or viewer_role != Membership.OWNER:  # one owner a team
        Membership.objects.create(team=team, user=member, role=member_role)
    else:
        member = viewer
    if Membership.OWNER not in (viewer_role, member_role):
        Membership.objects.create(team=team, user=owner, role=Membership.OWNER)
    browser = signed_in(viewer)
    shown = f"/teams/roles/members/{member.pk}/remove" in browser.get("/teams/roles").content.decode()
    browser.post(f"/teams/roles/members/{member.pk}/remove", {"confirmed": "yes"})
    removed = not Membership.objects.filter(team=team, user=member).exists()
    assert shown == removed
