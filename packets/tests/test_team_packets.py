"""Team scope for packets: push and list with ?team=, reading needs membership, deleting needs
to be the packet's creator (while still in the team) or the team's owner or an admin; deleting a
team takes its packets, deleting an account leaves the account's team packets with the team."""

import json

import pytest

from accounts.models import User
from core.testing import signed_in
from packets.models import Packet
from packets.services import packet_push
from packets.testing import packet_v02
from teams.models import Membership, Team
from teams.testing import make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def dave(make_user):
    return make_user("dave")


@pytest.fixture
def alpha(alice, bob, carol):
    """alice owns alpha; bob and carol are members."""
    return make_team(alice, "alpha", members=[bob, carol])


@pytest.fixture
def pushed_by_bob(api_as, bob, alpha):
    packet = packet_v02(goal="team knowledge")
    assert api_as(bob).post("/v1/packets?team=alpha", packet).status_code == 201
    return packet


def ids(response):
    return [item["id"] for item in response.json()["packets"]]


def test_a_team_push_is_stored_in_the_team(pushed_by_bob, bob, alpha):
    stored = Packet.objects.get(pk=pushed_by_bob["id"])
    assert stored.team == alpha and stored.owner == bob


def test_every_member_lists_and_pulls_team_packets(api_as, alice, carol, pushed_by_bob):
    for user in (alice, carol):
        api = api_as(user)
        assert ids(api.get("/v1/packets?team=alpha")) == [pushed_by_bob["id"]]
        pulled = api.get(f"/v1/packets/{pushed_by_bob['id']}")
        assert pulled.status_code == 200
        assert json.loads(pulled.content) == pushed_by_bob


def test_team_packets_stay_out_of_the_personal_list_and_vice_versa(api_as, bob, pushed_by_bob):
    api = api_as(bob)
    personal = packet_v02(goal="mine")
    api.post("/v1/packets", personal)
    assert ids(api.get("/v1/packets")) == [personal["id"]]
    assert ids(api.get("/v1/packets?team=alpha")) == [pushed_by_bob["id"]]


def test_a_non_member_cannot_push_list_or_pull(api_as, dave, pushed_by_bob):
    """A team of others answers as a team that does not exist."""
    api = api_as(dave)
    for name in ("alpha", "nosuchteam"):
        for response in (api.post(f"/v1/packets?team={name}", packet_v02()), api.get(f"/v1/packets?team={name}")):
            assert response.status_code == 404, name
            assert response.json() == {"error": "team not found"}
    assert api.get(f"/v1/packets/{pushed_by_bob['id']}").status_code == 404
    assert Packet.objects.count() == 1


def test_someone_who_left_can_no_longer_read_the_team_packets(api_as, carol, pushed_by_bob):
    api = api_as(carol)
    assert api.post("/v1/teams/alpha/leave", {}).status_code == 204
    assert api.get("/v1/packets?team=alpha").status_code == 404
    assert api.get(f"/v1/packets/{pushed_by_bob['id']}").status_code == 404


def test_the_creator_deletes_a_team_packet(api_as, bob, pushed_by_bob):
    assert api_as(bob).delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 204
    assert not Packet.objects.exists()


def test_the_team_owner_deletes_a_members_packet(api_as, alice, pushed_by_bob):
    assert api_as(alice).delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 204
    assert not Packet.objects.exists()


def test_another_member_gets_403_deleting_a_team_packet(api_as, carol, pushed_by_bob):
    response = api_as(carol).delete(f"/v1/packets/{pushed_by_bob['id']}")
    assert response.status_code == 403
    assert Packet.objects.filter(pk=pushed_by_bob["id"]).exists()


def test_a_non_member_gets_404_deleting_a_team_packet(api_as, dave, pushed_by_bob):
    response = api_as(dave).delete(f"/v1/packets/{pushed_by_bob['id']}")
    assert response.status_code == 404
    assert response.json() == {"error": "packet not found"}
    assert Packet.objects.filter(pk=pushed_by_bob["id"]).exists()


def test_leaving_ends_the_creators_right_to_delete(api_as, alice, bob, alpha, pushed_by_bob):
    """The protocol lets a creator keep it after leaving; this hub does not: leaving a team ends
    every right in it, and what they pushed stays with the team's owner and admins."""
    api = api_as(bob)
    assert api.post("/v1/teams/alpha/leave", {}).status_code == 204
    assert not Membership.objects.filter(team=alpha, user=bob).exists()
    assert api.delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 404
    assert Packet.objects.filter(pk=pushed_by_bob["id"]).exists()
    assert api_as(alice).delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 204


def test_a_removed_creators_public_page_stays_under_the_teams_managers(api_as, anon_api, alice, bob, pushed_by_bob):
    """Publish has the same rights as delete (protocol section 3): a removed creator neither takes
    their page down nor brings it back once a manager has; the owner and admins do both."""
    api = api_as(bob)
    url = api.post(f"/v1/packets/{pushed_by_bob['id']}/publish").json()["public_url"].removeprefix("http://testserver")
    assert api_as(alice).delete(f"/v1/teams/alpha/members/{bob.id}").status_code == 204
    assert anon_api.get(url).status_code == 200  # the page stays up
    assert api.delete(f"/v1/packets/{pushed_by_bob['id']}/publish").status_code == 404
    assert api_as(alice).delete(f"/v1/packets/{pushed_by_bob['id']}/publish").status_code == 204
    assert api.post(f"/v1/packets/{pushed_by_bob['id']}/publish").status_code == 404
    assert anon_api.get(url).status_code == 404
    assert api.delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 404
    assert Packet.objects.filter(pk=pushed_by_bob["id"]).exists()


def test_a_new_owner_gets_the_delete_right_and_the_old_owner_keeps_it_as_admin_until_demoted(
    api_as, alice, carol, alpha, pushed_by_bob
):
    from teams.services import membership_set_role, team_transfer_accept, team_transfer_offer

    team_transfer_offer(actor=alice, team=alpha, new_owner_id=carol.id)
    team_transfer_accept(actor=carol, team=alpha)
    membership_set_role(actor=carol, team=alpha, user_id=alice.id, role="member")
    assert api_as(alice).delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 403
    assert api_as(carol).delete(f"/v1/packets/{pushed_by_bob['id']}").status_code == 204


def test_an_admin_publishes_and_deletes_any_team_packet_and_a_plain_member_may_not(
    api_as, alice, carol, alpha, pushed_by_bob
):
    from teams.services import membership_set_role

    packet_id = pushed_by_bob["id"]
    assert api_as(carol).post(f"/v1/packets/{packet_id}/publish").status_code == 403
    assert api_as(carol).delete(f"/v1/packets/{packet_id}").status_code == 403
    membership_set_role(actor=alice, team=alpha, user_id=carol.id, role="admin")
    assert api_as(carol).post(f"/v1/packets/{packet_id}/publish").status_code == 200
    assert api_as(carol).delete(f"/v1/packets/{packet_id}/publish").status_code == 204
    assert api_as(carol).delete(f"/v1/packets/{packet_id}").status_code == 204
    assert not Packet.objects.filter(pk=packet_id).exists()


def test_a_creator_re_pushing_to_another_scope_is_refused_and_the_team_keeps_it(api_as, bob, carol, pushed_by_bob):
    response = api_as(bob).post("/v1/packets", dict(pushed_by_bob, goal="moved?"))
    assert response.status_code == 409
    assert response.json()["error"] == (
        f"packet {pushed_by_bob['id']} is in team alpha (ltm push -t alpha); push it there, or move it "
        "on the hub's packet page"
    )
    assert Packet.objects.get(pk=pushed_by_bob["id"]).team.name == "alpha"
    assert ids(api_as(carol).get("/v1/packets?team=alpha")) == [pushed_by_bob["id"]]


def test_a_creator_re_pushing_a_personal_packet_into_a_team_is_refused(api_as, bob, alpha):
    packet = packet_v02()
    assert api_as(bob).post("/v1/packets", packet).status_code == 201
    response = api_as(bob).post("/v1/packets?team=alpha", packet)
    assert response.status_code == 409
    assert "one of your personal packets (ltm push without -t)" in response.json()["error"]
    assert Packet.objects.get(pk=packet["id"]).team is None


def test_a_member_cannot_overwrite_another_members_team_packet(api_as, carol, pushed_by_bob):
    changed = dict(pushed_by_bob, goal="hijacked")
    response = api_as(carol).post("/v1/packets?team=alpha", changed)
    assert response.status_code == 409
    assert Packet.objects.get(pk=pushed_by_bob["id"]).goal == "team knowledge"


# Deleting a team takes its packets; deleting an account leaves its team packets with the team


def test_the_owner_deletes_the_team_and_its_packets_over_the_api(api_as, alice, bob, alpha):
    bob_api = api_as(bob)
    team_packet, personal = packet_v02(), packet_v02()
    assert bob_api.post("/v1/packets?team=alpha", team_packet).status_code == 201
    assert bob_api.post("/v1/packets", personal).status_code == 201

    response = api_as(alice).delete("/v1/teams/alpha")

    assert response.status_code == 204
    assert not Team.objects.filter(name="alpha").exists()
    assert not Membership.objects.filter(team_id=alpha.id).exists()
    assert list(Packet.objects.values_list("id", flat=True)) == [personal["id"]]
    assert bob_api.get("/v1/teams").json() == {"teams": []}


def test_the_owner_deletes_the_team_and_its_packets_on_its_page(alice, alpha):
    packet = packet_push(actor=alice, packet=packet_v02(), team=alpha)
    response = signed_in(alice).post("/teams/alpha/delete", {"confirm_name": "alpha"})
    assert response.status_code == 302 and response["Location"] == "/teams"
    assert not Team.objects.filter(name="alpha").exists()
    assert not Packet.objects.filter(pk=packet.pk).exists()


def test_delete_the_account_takes_personal_packets_and_leaves_team_packets_with_the_team(alice, bob):
    team = make_team(bob, "core", members=[alice])
    personal = packet_push(actor=alice, packet=packet_v02())
    shared = packet_push(actor=alice, packet=packet_v02(), team=team)
    client = signed_in(alice)

    asked = client.post("/account/delete")
    assert b"Delete your account?" in asked.content
    assert User.objects.filter(pk=alice.pk).exists()

    response = client.post("/account/delete", {"confirmed": "yes"})

    assert response.status_code == 302 and response["Location"] == "/"
    assert not User.objects.filter(pk=alice.pk).exists()
    assert not Packet.objects.filter(pk=personal.pk).exists()
    assert Packet.objects.get(pk=shared.pk).owner == bob
    assert client.get("/tokens").status_code == 302  # signed out


def test_the_packet_page_offers_an_admin_delete_and_publish(alice, carol, alpha, pushed_by_bob):
    from core.testing import signed_in
    from teams.services import membership_set_role

    path = f"/packets/{pushed_by_bob['id']}"
    assert f"{path}/delete" not in signed_in(carol).get(path).content.decode()
    membership_set_role(actor=alice, team=alpha, user_id=carol.id, role="admin")
    page = signed_in(carol).get(path).content.decode()
    assert f"{path}/delete" in page and f"{path}/publish" in page
