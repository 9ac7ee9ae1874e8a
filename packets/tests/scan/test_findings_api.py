"""The hub's secret scan on the wire: the policy (the hub's, a team's stricter one), the quarantine
of a flagged packet (no publishing, no sharing, no public page) and a refusal that stores nothing.
Clearing, who reads findings, the review queue and the rescan are test_findings_review.py."""

from urllib.parse import urlencode

import pytest

from core.testing import signed_in
from ltm.protocol.packet import canonical_json
from packets.models import Packet
from packets.publishing.services import packet_publish
from packets.scan.findings import REFUSED
from packets.services import packet_push
from packets.testing import packet_v02
from packets.testing.scan import FOUND, TOKEN, clean, events, leaky, set_scan, stored
from teams.models import Team, TeamEvent

pytestmark = pytest.mark.django_db


# The policy.


def test_flag_is_the_default_a_flagged_push_answers_201_with_its_findings_and_stores_it_as_sent(api_as, alice):
    packet = leaky()
    raw = canonical_json(packet).encode()
    api = api_as(alice)
    response = api.post("/v1/packets", raw=raw)
    assert response.status_code == 201
    assert response.json() == {"id": packet["id"], "findings": FOUND}
    assert api.get(f"/v1/packets/{packet['id']}").content == raw  # never altered
    assert stored(packet).quarantined and stored(packet).findings == FOUND

    other = packet_v02()
    assert api.post("/v1/packets", other).json() == {"id": other["id"]}  # clean: no findings key
    assert not stored(other).quarantined


def test_refuse_answers_422_with_the_findings_and_stores_nothing(api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "refuse"
    api, packet = api_as(alice), leaky()
    response = api.post("/v1/packets", packet)
    assert response.status_code == 422
    assert response.json() == {"error": REFUSED, "findings": FOUND}
    assert api.get(f"/v1/packets/{packet['id']}").status_code == 404
    assert api.get("/v1/packets").json() == {"packets": []}
    assert not Packet.objects.exists()


def test_off_scans_nothing(api_as, alice, settings):
    settings.LTM_SECRET_SCAN = "off"
    packet = leaky()
    assert api_as(alice).post("/v1/packets", packet).json() == {"id": packet["id"]}
    assert (stored(packet).findings, stored(packet).scanned_at, stored(packet).quarantined) == ([], None, False)


@pytest.mark.parametrize("manager", ["alice", "adam"])
def test_the_owner_or_an_admin_makes_the_team_stricter(request, api_as, alpha, manager):
    api = api_as(request.getfixturevalue(manager))
    response = set_scan(api, "alpha", "refuse")
    assert response.status_code == 200 and response.json()["team"]["secret_scan"] == "refuse"
    refused = api.post("/v1/packets?team=alpha", leaky())
    assert refused.status_code == 422 and refused.json()["findings"] == FOUND
    assert api.post("/v1/packets", leaky()).json()["findings"] == FOUND  # the hub's flag, elsewhere
    assert not Packet.objects.filter(team=alpha).exists()


def test_a_team_is_never_looser_than_the_hub(api_as, alice, alpha, settings):
    api = api_as(alice)
    response = set_scan(api, "alpha", "off")
    assert response.status_code == 400
    assert response.json()["error"] == "this hub's secret scan is 'flag'; a team may only be stricter (flag, refuse)"
    settings.LTM_SECRET_SCAN = "refuse"
    assert set_scan(api, "alpha", "flag").status_code == 400
    assert Team.objects.get(pk=alpha.pk).secret_scan == ""


def test_a_plain_member_may_not_change_the_teams_scan_and_a_stranger_does_not_find_the_team(api_as, bob, dave, alpha):
    assert set_scan(api_as(bob), "alpha", "refuse").status_code == 403
    assert set_scan(api_as(dave), "alpha", "refuse").status_code == 404


# The quarantine.


def test_a_flagged_packet_is_not_published_and_the_409_names_the_findings(api_as, bob, flagged):
    response = api_as(bob).post(f"/v1/packets/{flagged['id']}/publish")
    assert response.status_code == 409
    assert response.json()["findings"] == FOUND
    assert "the hub's secret scan found next_step (gitlab-token)" in response.json()["error"]
    assert stored(flagged).public_slug is None


def test_a_flagged_packet_is_not_shared(api_as, alice, bob):
    packet = leaky()
    api = api_as(alice)
    api.post("/v1/packets", packet)
    response = api.post(f"/v1/packets/{packet['id']}/shares", {"to": "bob"})
    assert response.status_code == 409
    assert response.json()["findings"] == FOUND
    assert not stored(packet).shares.exists()


def test_a_rescan_takes_down_the_public_page_of_a_packet_published_before(anon_api, alice, settings, rescan):
    settings.LTM_SECRET_SCAN = "off"
    packet = leaky()
    packet_push(actor=alice, packet=packet)
    slug = packet_publish(actor=alice, packet_id=packet["id"]).public_slug
    assert anon_api.get(f"/p/{slug}").status_code == 200

    settings.LTM_SECRET_SCAN = "flag"
    rescan()
    assert stored(packet).quarantined
    assert anon_api.get(f"/p/{slug}").status_code == 404
    assert anon_api.get(f"/p/{slug}.json").status_code == 404


def public_path(response) -> str | None:
    url = response.headers.get("X-LTM-Public-URL")
    return url.removeprefix("http://testserver") if url else None


def test_a_page_taken_down_for_a_secret_comes_back_only_when_published_again_under_a_new_url(api_as, anon_api, alice):
    """Quarantine takes the page down for good: a pull names no URL while it holds, and neither a
    clean re-push nor a clearing brings the old URL back; publishing again makes a new one."""
    api = api_as(alice)
    packet = clean(packet_v02())
    api.post("/v1/packets", packet)
    old = api.post(f"/v1/packets/{packet['id']}/publish").json()["public_url"].removeprefix("http://testserver")
    assert public_path(api.get(f"/v1/packets/{packet['id']}")) == old

    assert api.post("/v1/packets", {**packet, "next_step": leaky()["next_step"]}).json()["findings"] == FOUND
    pulled = api.get(f"/v1/packets/{packet['id']}")
    assert pulled.status_code == 200  # its creator reads it
    assert "X-LTM-Published-At" not in pulled and public_path(pulled) is None
    assert anon_api.get(old).status_code == 404

    assert api.post("/v1/packets", packet).json() == {"id": packet["id"]}  # clean again
    assert public_path(api.get(f"/v1/packets/{packet['id']}")) is None
    assert anon_api.get(old).status_code == 404

    new = api.post(f"/v1/packets/{packet['id']}/publish").json()["public_url"].removeprefix("http://testserver")
    assert new != old and anon_api.get(new).status_code == 200 and anon_api.get(old).status_code == 404
    assert public_path(api.get(f"/v1/packets/{packet['id']}")) == new


def test_clearing_the_findings_does_not_bring_a_page_back(api_as, anon_api, bob, flagged):
    api = api_as(bob)
    api.post("/v1/packets?team=alpha", clean(flagged))
    old = api.post(f"/v1/packets/{flagged['id']}/publish").json()["public_url"].removeprefix("http://testserver")
    api.post("/v1/packets?team=alpha", flagged)
    assert api.post(f"/v1/packets/{flagged['id']}/findings/clear", {"reason": "a revoked token"}).status_code == 200
    assert public_path(api.get(f"/v1/packets/{flagged['id']}")) is None
    assert anon_api.get(old).status_code == 404


def test_a_rescan_that_flags_a_published_packet_forgets_its_page(alice, settings, rescan):
    settings.LTM_SECRET_SCAN = "off"
    packet = leaky()
    packet_push(actor=alice, packet=packet)
    packet_publish(actor=alice, packet_id=packet["id"])
    settings.LTM_SECRET_SCAN = "flag"
    rescan()
    assert (stored(packet).public_slug, stored(packet).published_at) == (None, None)


def test_a_held_packet_is_found_by_its_id_only(api_as, bob, carol, flagged):
    """Its words, tags and project would tell a reader who may not read it what it says: a search
    by them does not find it for carol, a plain member; by its id it is found, held. bob finds it
    either way."""
    searches = ["suite", TOKEN, flagged["id"]]
    found = {
        person.username: [
            [hit["id"] for hit in api_as(person).get(f"/v1/search?{urlencode({'q': q})}").json()["results"]]
            for q in searches
        ]
        for person in (bob, carol)
    }
    assert found == {"bob": [[flagged["id"]]] * 3, "carol": [[], [], [flagged["id"]]]}
    tag, project = flagged["tags"][0], flagged["project"]["name"]
    for filters in ({"tag": tag}, {"project": project}, {"q": flagged["id"], "tag": tag}):
        listed = {person.username: listed_on_the_dashboard(person, filters) for person in (bob, carol)}
        assert listed == {"bob": [flagged["id"]], "carol": []}, filters


def listed_on_the_dashboard(person, filters: dict) -> list[str]:
    return [packet.id for packet in signed_in(person).get("/", filters).context["page"].object_list]


def test_a_clean_re_push_ends_the_quarantine(api_as, bob, flagged):
    api = api_as(bob)
    response = api.post("/v1/packets?team=alpha", clean(flagged))
    assert response.json() == {"id": flagged["id"]}
    assert not stored(flagged).quarantined and stored(flagged).findings == []
    assert api.post(f"/v1/packets/{flagged['id']}/publish").status_code in (200, 201)
    assert api.get(f"/v1/packets/{flagged['id']}/findings").json() == {"findings": []}


def test_a_push_that_is_flagged_is_logged_as_flagged(api_as, alice, flagged):
    api = api_as(alice)
    (line,) = events(api, TeamEvent.PACKET_FLAGGED)
    assert line["detail"]["packet_id"] == flagged["id"]
    assert events(api, TeamEvent.PACKET_PUSHED) == []


def test_the_log_names_a_held_packet_by_its_id_alone(api_as, alice, bob, carol, alpha):
    """Every member reads the log, and what the scan found may be in the goal."""
    packet = packet_v02(goal=f"deploy with {TOKEN}")
    api_as(bob).post("/v1/packets?team=alpha", packet)
    api_as(alice).delete(f"/v1/packets/{packet['id']}")
    lines = api_as(carol).get("/v1/teams/alpha/events").json()["events"]
    assert [(line["kind"], line["detail"]["goal"]) for line in lines if line["detail"].get("packet_id")] == [
        (TeamEvent.PACKET_DELETED, ""),
        (TeamEvent.PACKET_FLAGGED, ""),
    ]
