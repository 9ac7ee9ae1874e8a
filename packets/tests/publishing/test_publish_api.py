"""POST/DELETE /v1/packets/{id}/publish and the publish headers of GET /v1/packets/{id}."""

import pytest

from ltm.protocol.packet import parse_timestamp
from packets.testing import packet_v02
from teams.models import Membership, Team

pytestmark = pytest.mark.django_db


def publish(api, packet_id):
    """As the Go client sends it: no body and no content type."""
    return api.client.generic("POST", f"/v1/packets/{packet_id}/publish", HTTP_AUTHORIZATION=f"Bearer {api.token}")


def unpublish(api, packet_id):
    return api.delete(f"/v1/packets/{packet_id}/publish")


def public_path(url: str) -> str:
    return url.removeprefix("http://testserver")


@pytest.fixture
def owner_api(api_as, alice):
    return api_as(alice)


@pytest.fixture
def packet(owner_api):
    packet = packet_v02()
    assert owner_api.post("/v1/packets", packet).status_code == 201
    return packet


@pytest.fixture
def team(alice, bob, make_user):
    """alice owns it; bob and carol are members."""
    team = Team.objects.create(name="core", owner=alice)
    Membership.objects.create(team=team, user=alice, role=Membership.OWNER)
    Membership.objects.create(team=team, user=bob, role=Membership.MEMBER)
    Membership.objects.create(team=team, user=make_user("carol"), role=Membership.MEMBER)
    return team


def test_the_owner_publishes_without_a_body_and_gets_the_public_url(owner_api, anon_api, packet):
    response = publish(owner_api, packet["id"])
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"id", "public_url"}
    assert body["id"] == packet["id"]
    assert body["public_url"].startswith("http://testserver/p/")

    page = anon_api.get(public_path(body["public_url"]))
    assert page.status_code == 200
    assert packet["next_step"] in page.content.decode()


def test_the_public_url_is_random_and_does_not_reveal_the_packet_id(owner_api):
    slugs = set()
    for _ in range(3):
        packet = packet_v02()
        owner_api.post("/v1/packets", packet)
        url = publish(owner_api, packet["id"]).json()["public_url"]
        assert packet["id"] not in url
        slugs.add(url.rsplit("/", 1)[1])
    assert len(slugs) == 3
    assert all(len(slug) >= 22 for slug in slugs)  # at least 128 bits of base64url randomness


def test_the_url_follows_the_configured_external_url(owner_api, packet, settings):
    settings.LTM_EXTERNAL_URL = "https://hub.example.org"
    assert publish(owner_api, packet["id"]).json()["public_url"].startswith("https://hub.example.org/p/")


def test_publishing_twice_keeps_the_same_url(owner_api, packet):
    first = publish(owner_api, packet["id"]).json()["public_url"]
    second = publish(owner_api, packet["id"]).json()["public_url"]
    assert first == second


def test_unpublish_kills_the_url_and_republishing_mints_a_new_one(owner_api, anon_api, packet):
    old_url = publish(owner_api, packet["id"]).json()["public_url"]

    response = unpublish(owner_api, packet["id"])
    assert response.status_code == 204
    assert anon_api.get(public_path(old_url)).status_code == 404
    assert owner_api.get(f"/v1/packets/{packet['id']}").status_code == 200  # the packet itself stays

    new_url = publish(owner_api, packet["id"]).json()["public_url"]
    assert new_url != old_url
    assert anon_api.get(public_path(new_url)).status_code == 200
    assert anon_api.get(public_path(old_url)).status_code == 404


def test_unpublishing_an_unpublished_packet_is_harmless(owner_api, packet):
    assert unpublish(owner_api, packet["id"]).status_code == 204


def test_deleting_a_published_packet_kills_its_url(owner_api, anon_api, packet):
    url = publish(owner_api, packet["id"]).json()["public_url"]
    assert owner_api.delete(f"/v1/packets/{packet['id']}").status_code == 204
    assert anon_api.get(public_path(url)).status_code == 404


def test_headers_are_present_only_while_published_and_the_body_never_changes(owner_api, packet):
    path = f"/v1/packets/{packet['id']}"
    before = owner_api.get(path)
    assert "X-LTM-Published-At" not in before.headers
    assert "X-LTM-Public-URL" not in before.headers

    url = publish(owner_api, packet["id"]).json()["public_url"]
    during = owner_api.get(path)
    assert during.headers["X-LTM-Public-URL"] == url
    assert parse_timestamp(during.headers["X-LTM-Published-At"]) is not None
    assert during.content == before.content

    unpublish(owner_api, packet["id"])
    after = owner_api.get(path)
    assert "X-LTM-Published-At" not in after.headers
    assert "X-LTM-Public-URL" not in after.headers
    assert after.content == before.content


def test_a_stranger_gets_404_and_cannot_tell_the_packet_exists(owner_api, api_as, bob, packet):
    stranger = api_as(bob)
    for response in (publish(stranger, packet["id"]), unpublish(stranger, packet["id"])):
        assert response.status_code == 404
        assert response.json() == {"error": "packet not found"}
    assert publish(stranger, "01UNKNOWNPACKET0000000000").json() == {"error": "packet not found"}


def test_a_stranger_cannot_unpublish_someone_elses_page(owner_api, anon_api, api_as, bob, packet):
    url = publish(owner_api, packet["id"]).json()["public_url"]
    assert unpublish(api_as(bob), packet["id"]).status_code == 404
    assert anon_api.get(public_path(url)).status_code == 200


def test_publish_needs_a_token(anon_api, packet):
    response = anon_api.post(f"/v1/packets/{packet['id']}/publish")
    assert response.status_code == 401
    assert response.json() == {"error": "missing bearer token"}


def test_team_packet_can_be_published_by_its_creator_and_by_the_team_owner(api_as, alice, bob, team):
    packet = packet_v02()
    creator = api_as(bob)
    assert creator.post("/v1/packets?team=core", packet).status_code == 201

    url = publish(creator, packet["id"]).json()["public_url"]
    team_owner = api_as(alice)
    assert publish(team_owner, packet["id"]).json()["public_url"] == url
    assert unpublish(team_owner, packet["id"]).status_code == 204
    assert publish(creator, packet["id"]).status_code == 200


def test_a_plain_member_gets_403_on_someone_elses_team_packet(api_as, bob, team):
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=core", packet)
    carol = api_as(team.memberships.get(user__username="carol").user)
    for response in (publish(carol, packet["id"]), unpublish(carol, packet["id"])):
        assert response.status_code == 403
        assert "creator or the team owner" in response.json()["error"]


def test_someone_outside_the_team_gets_404_on_a_team_packet(api_as, bob, make_user, team):
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=core", packet)
    outsider = api_as(make_user("dave"))
    assert publish(outsider, packet["id"]).status_code == 404
    assert unpublish(outsider, packet["id"]).status_code == 404


def test_team_members_see_the_publish_headers(api_as, alice, bob, team):
    packet = packet_v02()
    api_as(bob).post("/v1/packets?team=core", packet)
    url = publish(api_as(bob), packet["id"]).json()["public_url"]
    carol = api_as(team.memberships.get(user__username="carol").user)
    assert carol.get(f"/v1/packets/{packet['id']}").headers["X-LTM-Public-URL"] == url
