"""The way out of a secret scan's quarantine (a clearing with a reason, a clean re-push), who reads
findings and the review queue, a move under another policy, and the rescan of stored packets
(manage.py ltm_scan)."""

import pytest

from core.testing import signed_in
from packets.models import Packet
from packets.scan import findings
from packets.scan.findings import REFUSED
from packets.services import packet_move, packet_push
from packets.testing import packet_v02
from packets.testing.scan import FOUND, clean, events, leaky, stored
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db


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


def test_the_review_queue_applies_clear_itself_whatever_team_its_caller_passes(alice, bob, carol, dave, alpha, flagged):
    """The selector, given a team its caller did not check: only what the viewer may clear (CLEAR)
    of it; nothing of a team they are not in, nor of their teammates' packets as a plain member."""
    assert [packet.pk for packet in findings.review_queue(viewer=alice, team=alpha)] == [flagged["id"]]
    assert [packet.pk for packet in findings.review_queue(viewer=bob, team=alpha)] == [flagged["id"]]
    for viewer in (carol, dave):
        assert findings.review_queue(viewer=viewer, team=alpha) == []
        assert findings.review_queue_size(viewer=viewer) == 0


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
