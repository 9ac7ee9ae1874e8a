"""The hub's secret scan on the wire: the policy (the hub's, a team's stricter one), the quarantine
of a flagged packet (no publishing, no sharing, no public page), its way out (a clean re-push, a
clearing with a reason), who reads findings and the review queue, a refusal that stores nothing,
and the rescan of stored packets (manage.py ltm_scan)."""

import io
import json
from urllib.parse import urlencode

import pytest
from django.core.management import call_command

from core.testing import signed_in
from ltm.protocol.packet import canonical_json
from packets.findings import REFUSED
from packets.models import Packet, ScanRun
from packets.services import packet_move, packet_publish, packet_push
from packets.testing import packet_v02
from teams.models import Membership, Team, TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db

# A GitLab token in the next step: made up, in the real format.
TOKEN = "glpat-Xq7vR2mK9pL4sT8wZ3nB"
FOUND = [{"path": "next_step", "kind": "gitlab-token"}]


def leaky(**changes) -> dict:
    return packet_v02(next_step=f"clone with {TOKEN} and run the suite", **changes)


def clean(packet: dict) -> dict:
    return {**packet, "next_step": "clone with the CI token from the vault and run the suite"}


@pytest.fixture
def alpha(alice, adam, bob, carol):
    """alice owns alpha, adam administers it, bob and carol are plain members."""
    team = make_team(alice, "alpha", members=[bob, carol])
    Membership.objects.create(team=team, user=adam, role=Membership.ADMIN)
    return team


@pytest.fixture
def flagged(api_as, bob, alpha):
    """bob's team packet, pushed with a token in it and flagged: the packet as sent."""
    packet = leaky()
    response = api_as(bob).post("/v1/packets?team=alpha", packet)
    assert response.status_code == 201, response.content
    return packet


def set_scan(api, team: str, level: str):
    return api.client.patch(
        f"/v1/teams/{team}",
        data=json.dumps({"secret_scan": level}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {api.token}",
    )


def stored(packet: dict) -> Packet:
    return Packet.objects.get(pk=packet["id"])


def events(api, kind: str) -> list[dict]:
    return api.get(f"/v1/teams/alpha/events?kind={kind}").json()["events"]


@pytest.fixture
def rescan(django_capture_on_commit_callbacks):
    """rescan(*arguments): manage.py ltm_scan --no-wait, whose Celery task runs (eagerly) once the
    command's transaction commits; the ScanRun, as the task left it."""

    def run(*arguments: str) -> ScanRun:
        with django_capture_on_commit_callbacks(execute=True):
            call_command("ltm_scan", "--no-wait", *arguments, stdout=io.StringIO())
        return ScanRun.objects.order_by("-requested_at").first()

    return run


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


# Clearing.


@pytest.mark.parametrize("who", ["bob", "adam", "alice"])  # the creator, an admin, the owner
def test_the_creator_or_a_manager_clears_the_findings_with_a_reason_and_it_is_logged(
    request, api_as, alice, flagged, who
):
    person = request.getfixturevalue(who)
    api = api_as(person)
    response = api.post(f"/v1/packets/{flagged['id']}/findings/clear", {"reason": "a  revoked\ntest token"})
    assert response.status_code == 200
    (finding,) = response.json()["findings"]
    assert (finding["path"], finding["kind"], finding["reason"]) == (
        "next_step",
        "gitlab-token",
        "a revoked test token",
    )
    assert finding["cleared_by"]["id"] == person.id and finding["cleared_at"]
    assert not stored(flagged).quarantined
    assert api.post(f"/v1/packets/{flagged['id']}/publish").status_code in (200, 201)

    (line,) = events(api_as(alice), TeamEvent.FINDING_CLEARED)
    assert line["actor"]["id"] == person.id
    assert line["detail"]["reason"] == "a revoked test token" and line["detail"]["packet_id"] == flagged["id"]


def test_a_plain_member_may_not_clear_a_stranger_does_not_find_it_and_a_reason_is_needed(
    api_as, bob, carol, dave, flagged
):
    path = f"/v1/packets/{flagged['id']}/findings/clear"
    assert api_as(carol).post(path, {"reason": "fine"}).status_code == 403
    assert api_as(dave).post(path, {"reason": "fine"}).status_code == 404
    for body in ({}, {"reason": "   "}):
        response = api_as(bob).post(path, body)
        assert response.status_code == 400
        assert response.json()["error"].startswith("reason is required")
    assert stored(flagged).quarantined


def test_a_re_push_forgets_an_earlier_clearing(api_as, bob, flagged):
    api = api_as(bob)
    api.post(f"/v1/packets/{flagged['id']}/findings/clear", {"reason": "a test token"})
    again = api.post("/v1/packets?team=alpha", {**flagged, "goal": "still leaky"})
    assert again.json()["findings"] == FOUND
    assert stored(flagged).quarantined and stored(flagged).findings_cleared_at is None


# Reading findings, and the review queue.


def test_whoever_reads_the_packet_reads_its_findings_and_nobody_else(api_as, alice, bob, carol, dave, flagged):
    for person in (alice, bob, carol):
        response = api_as(person).get(f"/v1/packets/{flagged['id']}/findings")
        assert response.status_code == 200
        (finding,) = response.json()["findings"]
        assert finding == {
            **FOUND[0],
            "created_at": finding["created_at"],
            "cleared_by": None,
            "cleared_at": None,
            "reason": "",
        }
        assert finding["created_at"]
    assert api_as(dave).get(f"/v1/packets/{flagged['id']}/findings").status_code == 404


def queue(api, query=""):
    response = api.get(f"/v1/findings{query}")
    assert response.status_code == 200, response.content
    return [(item["packet_id"], item["team"], item["path"], item["kind"]) for item in response.json()["findings"]]


def test_the_review_queue_holds_your_packets_and_the_teams_you_run(api_as, alice, adam, bob, carol, dave, flagged):
    personal = leaky()
    api_as(alice).post("/v1/packets", personal)
    team_item = (flagged["id"], "alpha", "next_step", "gitlab-token")
    assert queue(api_as(alice)) == [(personal["id"], None, "next_step", "gitlab-token"), team_item]
    assert queue(api_as(alice), "?team=alpha") == [team_item]
    assert queue(api_as(adam)) == [team_item]
    assert queue(api_as(bob)) == [team_item]  # the creator
    assert queue(api_as(carol)) == []  # a plain member reads the findings, is not asked to review them
    assert queue(api_as(carol), "?team=alpha") == []
    assert api_as(dave).get("/v1/findings?team=alpha").status_code == 404

    api_as(adam).post(f"/v1/packets/{flagged['id']}/findings/clear", {"reason": "a test token"})
    assert queue(api_as(alice), "?team=alpha") == []


# The dashboard's move.


def test_moving_a_packet_into_a_team_that_refuses_it_is_refused(alice, settings):
    team = make_team(alice, "beta")
    team.secret_scan = "refuse"
    team.save()
    packet = leaky()
    packet_push(actor=alice, packet=packet)
    response = signed_in(alice).post(f"/packets/{packet['id']}/move", {"to": "team:beta"}, follow=True)
    assert REFUSED in response.content.decode()
    assert stored(packet).team is None

    packet_push(actor=alice, packet=clean(packet))
    signed_in(alice).post(f"/packets/{packet['id']}/move", {"to": "team:beta"})
    assert stored(packet).team == team


def test_a_move_that_finds_the_findings_again_keeps_their_clearing_and_one_that_finds_others_forgets_it(
    api_as, alice, bob, flagged
):
    """Packet.record_scan, the one rule for a stored packet scanned again (a move, a rescan): the
    same findings change nothing, a clearing of them included."""
    api_as(alice).post(f"/v1/packets/{flagged['id']}/findings/clear", {"reason": "a revoked test token"})
    packet_move(actor=bob, packet_id=flagged["id"], team=None)
    assert not stored(flagged).quarantined and stored(flagged).findings_clear_reason == "a revoked test token"
    packet = stored(flagged)
    assert packet.record_scan(FOUND, packet.scanned_at) == []
    assert packet.record_scan([*FOUND, {"path": "goal", "kind": "gitlab-token"}], packet.scanned_at)
    assert packet.quarantined and packet.findings_cleared_at is None
    assert Packet(findings=[]).record_scan([], packet.scanned_at)  # a push's packet, new: always scanned


# The rescan.


def test_a_rescan_flags_what_was_stored_while_the_scan_was_off_once(alice, bob, alpha, api_as, settings, rescan):
    settings.LTM_SECRET_SCAN = "off"
    personal, team_packet, harmless = leaky(), leaky(), packet_v02()
    packet_push(actor=alice, packet=personal)
    packet_push(actor=bob, packet=team_packet, team=alpha)
    packet_push(actor=alice, packet=harmless)
    settings.LTM_SECRET_SCAN = "flag"

    run = rescan()
    assert (run.total, run.scanned, run.flagged, run.unflagged) == (3, 3, 2, 0)
    assert run.started_at and run.finished_at and run.team is None
    assert stored(personal).quarantined and stored(team_packet).findings == FOUND
    assert not stored(harmless).quarantined
    (line,) = events(api_as(alice), TeamEvent.PACKET_FLAGGED)
    assert line["detail"]["packet_id"] == team_packet["id"] and line["actor"]["id"] is None  # the scan

    again = rescan()
    assert (again.scanned, again.flagged, again.unflagged) == (3, 0, 0)
    assert len(events(api_as(alice), TeamEvent.PACKET_FLAGGED)) == 1


def test_a_rescan_of_one_team_leaves_the_rest_alone(alice, bob, alpha, settings, rescan):
    settings.LTM_SECRET_SCAN = "off"
    personal, team_packet = leaky(), leaky()
    packet_push(actor=alice, packet=personal)
    packet_push(actor=bob, packet=team_packet, team=alpha)
    settings.LTM_SECRET_SCAN = "flag"

    run = rescan("--team", "alpha")
    assert (run.team, run.total, run.scanned, run.flagged) == (alpha, 1, 1, 1)
    assert stored(team_packet).quarantined and not stored(personal).quarantined


def test_a_rescan_ends_the_quarantine_of_a_packet_todays_patterns_do_not_flag(alice, rescan):
    packet = packet_v02()
    packet_push(actor=alice, packet=packet)
    Packet.objects.filter(pk=packet["id"]).update(findings=[{"path": "goal", "kind": "retired-kind"}], quarantined=True)
    run = rescan()
    assert (run.flagged, run.unflagged) == (0, 1)
    assert not stored(packet).quarantined and stored(packet).findings == []
