"""The team's activity log: what teams.services write, and reading it on the wire (keyset pages,
a kind filter) and on the dashboard (the team's page and the activity page)."""

import pytest

from core.errors import Forbidden
from core.testing import signed_in
from teams import services
from teams.events import team_event_record
from teams.models import Membership, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(alice, bob):
    return make_team(alice, "alpha", members=[bob])


def kinds(team):
    return [e.kind for e in TeamEvent.objects.filter(team=team).order_by("id")]


def link(code):
    return f"http://hub.test/v1/invites/{code}"


def test_every_team_change_writes_its_line_with_who_and_what(alice, bob, carol, make_user, alpha):
    invite, code = services.invite_create(actor=alice, team=alpha, email="carol@example.org", link=link)
    services.invite_accept(code=code, actor=carol)
    revoked, _ = services.invite_create(actor=bob, team=alpha, label="Kim")
    services.invite_revoke(actor=alice, team=alpha, invite_id=revoked.pk)
    mailed, _ = services.invite_create(actor=alice, team=alpha, email="dan@example.org", link=link)
    services.invite_resend(actor=alice, team=alpha, invite_id=mailed.pk, link=link)
    services.membership_set_role(actor=alice, team=alpha, user_id=carol.pk, role="admin")
    services.membership_set_role(actor=alice, team=alpha, user_id=carol.pk, role="member")
    services.team_transfer_offer(actor=alice, team=alpha, new_owner_id=bob.pk)
    services.team_transfer_accept(actor=bob, team=alpha)
    services.membership_remove(actor=bob, team=alpha, user_id=carol.pk)
    services.team_leave(actor=alice, team=alpha)
    _, code = services.invite_create(actor=bob, team=alpha)
    services.invite_accept(code=code, display="Dana")  # `ltm join` on a clean machine

    events = list(TeamEvent.objects.filter(team=alpha).order_by("id"))
    assert [(e.kind, e.actor_name, e.summary) for e in events] == [
        ("invite.created", "alice", "created an invite for carol@example.org"),
        ("invite.accepted", "carol", "accepted the invite for carol@example.org"),
        ("member.joined", "carol", "joined the team"),
        ("invite.created", "bob", "created an invite for “Kim”"),
        ("invite.revoked", "alice", "revoked the invite for “Kim”"),
        ("invite.created", "alice", "created an invite for dan@example.org"),
        ("invite.resent", "alice", "resent the invite to dan@example.org"),
        ("member.promoted", "alice", "made carol an admin"),
        ("member.demoted", "alice", "made carol a plain member"),
        ("ownership.offered", "alice", "offered the ownership to bob"),
        ("ownership.transferred", "bob", "took over the ownership from alice"),
        ("member.removed", "bob", "removed carol"),
        ("member.left", "alice", "left the team"),
        ("invite.created", "bob", "created an invite link"),
        ("invite.accepted", "Dana", "accepted an invite link"),
        ("member.joined", "Dana", "joined the team"),
    ]
    assert events[7].detail == {"user_id": carol.pk, "name": "carol", "role": "admin"}
    assert events[0].actor == alice and events[0].detail["invite_id"] == invite.pk


def test_refused_and_idle_changes_write_nothing(alice, bob, alpha):
    services.membership_set_role(actor=alice, team=alpha, user_id=bob.pk, role="member")  # already
    invite, _ = services.invite_create(actor=alice, team=alpha)
    services.invite_revoke(actor=alice, team=alpha, invite_id=invite.pk)
    services.invite_revoke(actor=alice, team=alpha, invite_id=invite.pk)  # again: nothing changes
    with pytest.raises(Forbidden):
        services.membership_remove(actor=bob, team=alpha, user_id=alice.pk)
    assert kinds(alpha) == ["invite.created", "invite.revoked"]


def test_the_log_is_deleted_with_the_team_only(alice, bob, alpha):
    services.team_leave(actor=bob, team=alpha)
    assert TeamEvent.objects.filter(team=alpha).count() == 1
    services.team_delete(actor=alice, team=alpha)
    assert not TeamEvent.objects.exists()


# On the wire


def fill(team, actor, count):
    TeamEvent.objects.bulk_create(
        TeamEvent(team=team, actor=actor, actor_name=actor.username, kind="member.left" if i % 3 else "member.joined")
        for i in range(count)
    )


def test_the_api_pages_newest_first_with_before(api_as, alice, bob, alpha):
    fill(alpha, alice, 7)
    api = api_as(bob)
    first = api.get("/v1/teams/alpha/events?limit=3").json()
    ids = [e["id"] for e in first["events"]]
    assert ids == sorted(ids, reverse=True) and len(ids) == 3 and first["next_before"] == ids[-1]
    second = api.get(f"/v1/teams/alpha/events?limit=3&before={first['next_before']}").json()
    third = api.get(f"/v1/teams/alpha/events?limit=3&before={second['next_before']}").json()
    all_ids = ids + [e["id"] for e in second["events"] + third["events"]]
    assert all_ids == sorted(TeamEvent.objects.filter(team=alpha).values_list("id", flat=True), reverse=True)
    assert len(third["events"]) == 1 and third["next_before"] is None
    exact = api.get("/v1/teams/alpha/events?limit=7").json()  # all of them: no older page
    assert len(exact["events"]) == 7 and exact["next_before"] is None
    event = first["events"][0]
    assert set(event) == {"id", "kind", "actor", "created_at", "summary", "detail"}
    assert event["actor"] == {"id": alice.pk, "display": "alice"} and event["created_at"].endswith("Z")


def test_the_api_filters_by_kind(api_as, alice, alpha):
    fill(alpha, alice, 6)
    events = api_as(alice).get("/v1/teams/alpha/events?kind=member.joined").json()["events"]
    assert [e["kind"] for e in events] == ["member.joined"] * 2


@pytest.mark.parametrize(
    "query, message",
    [
        ("limit=0", "limit must be"),
        ("limit=201", "limit must be"),
        ("limit=x", "limit must be"),
        ("before=-1", "before must be"),
        ("before=1.5", "before must be"),
        ("before=" + "9" * 30, "before must be"),
        ("kind=nope", "unknown kind"),
    ],
)
def test_bad_parameters_are_400(api_as, alice, alpha, query, message):
    response = api_as(alice).get(f"/v1/teams/alpha/events?{query}")
    assert response.status_code == 400 and message in response.json()["error"]


def test_an_outsider_gets_404_and_the_selector_gives_them_nothing(api_as, alice, carol, alpha):
    from teams.selectors import team_events

    fill(alpha, alice, 2)
    assert api_as(carol).get("/v1/teams/alpha/events").status_code == 404
    assert team_events(viewer=carol, team=alpha) == [] and len(team_events(viewer=alice, team=alpha)) == 2


# On the dashboard


def test_the_team_page_shows_recent_activity_and_the_activity_page_pages_and_filters(alice, bob, alpha):
    services.team_leave(actor=bob, team=alpha)
    client = signed_in(alice)
    page = client.get("/teams/alpha").content.decode()
    assert "bob</strong> left the team" in page and 'href="/teams/alpha/activity"' in page

    fill(alpha, alice, 40)
    first = client.get("/teams/alpha/activity")
    assert len(first.context["events"]) == 30 and first.context["older"] is not None
    older = client.get(f"/teams/alpha/activity?before={first.context['older']}")
    assert len(older.context["events"]) == 11 and older.context["older"] is None
    assert 'data-kind="member.left"' in older.content.decode()

    joined = client.get("/teams/alpha/activity?kind=member.joined")
    assert {e.kind for e in joined.context["events"]} == {"member.joined"}
    assert client.get("/teams/alpha/activity?kind=nope&before=x").status_code == 200  # ignored


def test_the_team_page_shows_who_an_invite_is_for_and_the_managers_buttons(alice, bob, alpha):
    services.invite_create(actor=alice, team=alpha, email="sam@example.org", link=link)
    services.invite_create(actor=bob, team=alpha, label="Kim")
    owner = signed_in(alice).get("/teams/alpha").content.decode()
    member = signed_in(bob).get("/teams/alpha").content.decode()
    for page in (owner, member):
        assert "sam@example.org" in page and "Kim" in page
    assert "/resend" in owner and "Invite by e-mail" in owner and "Make admin" in owner
    assert "/resend" not in member and "Invite by e-mail" not in member and "Make admin" not in member
    Membership.objects.filter(team=alpha, user=bob).update(role=Membership.ADMIN)
    admin = signed_in(bob).get("/teams/alpha").content.decode()
    assert "/resend" in admin and "Invite by e-mail" in admin and "Make admin" not in admin


@pytest.mark.django_db(transaction=True)
def test_a_line_is_written_only_inside_the_transaction_of_its_change(alice, alpha):
    """Outside a transaction a line could outlive its change rolled back, or the change outlive a
    line that failed: the log's writer refuses."""
    with pytest.raises(RuntimeError, match="inside the transaction"):
        team_event_record(team_id=alpha.pk, actor=alice, kind=TeamEvent.SETTINGS_CHANGED, share_outside=True)
    assert not TeamEvent.objects.filter(kind=TeamEvent.SETTINGS_CHANGED).exists()
