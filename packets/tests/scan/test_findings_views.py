"""The secret scan on the dashboard: the warning on a flagged packet's page (which fields, which
kinds, never the secret, and how to fix it), the Clear findings form and who sees it, clearing and
its log line, Publish and Share refused as messages, the quarantined badge in the lists, and the
review queue with its link in the navigation."""

import re

import pytest
from django.utils.html import escape

from core.testing import signed_in
from packets.models import HELD_GOAL, Packet, Share
from packets.publishing.services import packet_publish
from packets.services import packet_push
from packets.testing import push_packet
from packets.testing.scan import TOKEN, leaky
from teams.models import TeamEvent
from teams.testing import make_team

pytestmark = pytest.mark.django_db

CLEAR_FORM = 'action="/packets/{}/findings/clear"'


@pytest.fixture
def flagged(bob, alpha) -> Packet:
    """bob's team packet, pushed with a token in its next step: flagged and quarantined (here the
    stored row, where conftest's is the packet as sent)."""
    packet = packet_push(actor=bob, packet=leaky(goal="Deploy the runner"), team=alpha)
    assert packet.quarantined
    return packet


def page(user, packet_id) -> str:
    return signed_in(user).get(f"/packets/{packet_id}").content.decode()


def warning(html: str) -> str:
    """The findings card of a packet's page."""
    match = re.search(r'<section class="card scan-[a-z]+" id="findings".*?</section>', html, re.S)
    assert match, "no findings card on the page"
    return match.group(0)


def said(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def clear(user, packet_id, reason):
    return signed_in(user).post(f"/packets/{packet_id}/findings/clear", {"reason": reason}, follow=True)


# The warning


def test_the_warning_names_the_fields_and_kinds_and_never_the_secret(bob, flagged):
    html = page(bob, flagged.id)
    card = warning(html)
    assert "This packet looks like it carries secrets" in card
    assert "<code>next_step</code>" in card and "gitlab-token" in card
    assert "quarantined" in card and "cannot be published or shared" in card
    assert TOKEN not in card and "glpat" not in card
    # The packet itself is shown as it was sent: the warning says where to look, not what.
    assert TOKEN in html


def test_the_creator_is_shown_how_to_push_a_clean_version(alice, bob, flagged):
    card = warning(page(bob, flagged.id))
    assert f"ltm pull {flagged.id} &gt; packet.json\nltm push packet.json -t alpha" in card
    others = warning(page(alice, flagged.id))
    assert "ltm push packet.json" not in others and "bob, who pushed the packet, can push a version" in others


def test_a_clean_packet_has_no_findings_card(alice):
    packet = push_packet(alice)
    html = page(alice, packet.id)
    assert 'id="findings"' not in html and f'action="/packets/{packet.id}/publish"' in html


def test_a_public_page_is_taken_down_by_the_quarantine_and_the_page_says_so(alice):
    packet = push_packet(alice, next_step="ship it")
    slug = packet_publish(actor=alice, packet_id=packet.id).public_slug
    packet_push(actor=alice, packet=leaky(id=packet.id))  # re-pushed with a token in it
    assert signed_in(alice).get(f"/p/{slug}").status_code == 404
    html = page(alice, packet.id)
    assert "a public page it had was taken down (publishing it again then makes a new link)" in warning(html)
    assert 'id="public-url"' not in html and 'badge ok">public' not in html


# Who may clear: the creator, the team's owner and admins (CHANGE)


def test_the_clear_form_is_shown_to_the_creator_the_owner_and_admins_only(alice, adam, bob, carol, flagged):
    for person in (alice, adam, bob):
        assert CLEAR_FORM.format(flagged.id) in page(person, flagged.id), person
    html = page(carol, flagged.id)
    assert 'id="findings"' in html and CLEAR_FORM.format(flagged.id) not in html


def test_on_a_personal_packet_only_its_creator_sees_the_clear_form(carol):
    packet = packet_push(actor=carol, packet=leaky())
    assert CLEAR_FORM.format(packet.id) in page(carol, packet.id)


def test_an_admin_clears_with_a_reason_and_the_team_log_keeps_it(adam, bob, flagged):
    response = clear(adam, flagged.id, "  a revoked   fixture token ")
    assert response.redirect_chain == [(f"/packets/{flagged.id}", 302)]
    assert said(response) == [
        "Findings cleared: everyone who may read the packet can read it again, and it may be published and shared."
    ]
    packet = Packet.objects.get(pk=flagged.id)
    assert not packet.quarantined and packet.findings_cleared_by == adam
    assert packet.findings_clear_reason == "a revoked fixture token"
    event = TeamEvent.objects.get(kind=TeamEvent.FINDING_CLEARED)
    assert event.actor == adam and event.detail["reason"] == "a revoked fixture token"

    # The page now shows the findings as cleared: by whom, when, why; no form, Publish offered.
    html = page(bob, flagged.id)
    card = warning(html)
    assert "scan-cleared" in card and "<strong>adam</strong> cleared it" in card
    assert "a revoked fixture token" in card and "just now" in card and "gitlab-token" in card
    assert CLEAR_FORM.format(flagged.id) not in html
    assert f'action="/packets/{flagged.id}/publish"' in html
    assert "you cleared it" in warning(page(adam, flagged.id))


def test_clearing_needs_a_reason(bob, flagged):
    response = clear(bob, flagged.id, "   ")
    assert said(response) == ["reason is required: why these findings are not secrets (or no longer matter)"]
    assert Packet.objects.get(pk=flagged.id).quarantined


def test_a_member_who_did_not_push_it_is_refused_with_a_message(carol, flagged):
    response = clear(carol, flagged.id, "trust me")
    assert response.status_code == 409  # back on its page, which the quarantine holds back from her
    assert said(response) == ["only the packet's creator or the team owner (or an admin) can clear its findings"]
    assert Packet.objects.get(pk=flagged.id).quarantined


def test_a_stranger_gets_404(dave, flagged):
    assert signed_in(dave).post(f"/packets/{flagged.id}/findings/clear", {"reason": "x"}).status_code == 404
    assert Packet.objects.get(pk=flagged.id).quarantined


# Publish and Share on a quarantined packet


def test_publish_and_share_are_not_offered_and_say_why(alice, bob, flagged, alpha):
    alpha.share_outside = True
    alpha.save()
    html = page(bob, flagged.id)
    assert f'action="/packets/{flagged.id}/publish"' not in html
    assert '<button type="button" class="secondary" disabled aria-describedby="findings-held">Publish</button>' in html
    assert f'action="/packets/{flagged.id}/share"' not in html
    assert "Sharing with a person is off while the secret scan holds this packet back." in html


def test_publishing_a_quarantined_packet_anyway_is_a_message(bob, flagged):
    response = signed_in(bob).post(f"/packets/{flagged.id}/publish", follow=True)
    assert response.status_code == 200 and response.redirect_chain == [(f"/packets/{flagged.id}", 302)]
    [message] = said(response)
    assert message.startswith(f"packet {flagged.id} cannot be published: the hub's secret scan found next_step")
    assert Packet.objects.get(pk=flagged.id).public_slug is None


def test_sharing_a_quarantined_packet_anyway_is_a_message(carol):
    packet = packet_push(actor=carol, packet=leaky())
    response = signed_in(carol).post(f"/packets/{packet.id}/share", {"to": "alice"}, follow=True)
    assert response.status_code == 200
    [message] = said(response)
    assert message.startswith(f"packet {packet.id} cannot be shared: the hub's secret scan found next_step")
    assert not Share.objects.exists()


# The badge


def test_the_list_marks_quarantined_packets(bob, flagged):
    clean = push_packet(bob, goal="Tidy the runner")
    html = signed_in(bob).get("/").content.decode()
    badge = f'<a class="badge danger" href="/packets/{flagged.id}#findings"'
    assert html.count('class="badge danger"') == 1 and badge in html
    assert clean.id in html


def test_search_results_mark_quarantined_packets(bob, flagged):
    html = signed_in(bob).get("/", {"q": "runner"}).content.decode()
    assert f'<a class="badge danger" href="/packets/{flagged.id}#findings"' in html


def test_shares_sent_mark_a_packet_quarantined_since(alice, bob):
    packet = push_packet(alice, next_step="ship it")
    signed_in(alice).post(f"/packets/{packet.id}/share", {"to": "bob"})
    packet_push(actor=alice, packet=leaky(id=packet.id))
    html = signed_in(alice).get("/shared/by-me").content.decode()
    assert f'<a class="badge danger" href="/packets/{packet.id}#findings"' in html


def test_a_held_packet_is_named_only_by_its_hold_to_those_who_may_not_clear_it(api_as, alice, bob, carol, flagged):
    """carol, a plain member, and the person bob shared it with before it was flagged: its page
    says it is held and what was found, the lists and the inbox name it by HELD_GOAL; its goal
    and next step show nowhere. bob, who pushed it, reads it all."""
    Packet.objects.filter(pk=flagged.id).update(quarantined=False)
    flagged.team.share_outside = True
    flagged.team.save()
    dave = type(bob).objects.create_user(username="dave")
    signed_in(bob).post(f"/packets/{flagged.id}/share", {"to": "dave"})
    Packet.objects.filter(pk=flagged.id).update(quarantined=True)
    for person, where in ((carol, "/"), (dave, "/shared")):
        listed = signed_in(person).get(where).content.decode()
        assert flagged.id in listed and escape(HELD_GOAL) in listed, person
        held = signed_in(person).get(f"/packets/{flagged.id}")
        html = held.content.decode()
        assert held.status_code == 409 and "This packet is held back by the hub's secret scan" in html
        assert "<code>next_step</code>" in html and "gitlab-token" in html
        downloaded = signed_in(person).get(f"/packets/{flagged.id}.json")
        assert downloaded.status_code == 409
        for text in (listed, html, downloaded.content.decode()):
            assert "Deploy the runner" not in text and TOKEN not in text, person
    assert api_as(dave).get("/v1/shares").json()["shares"][0]["goal"] == HELD_GOAL
    assert "Deploy the runner" in signed_in(bob).get("/shared/by-me").content.decode()
    assert TOKEN in page(bob, flagged.id)


# The review queue


def queue(user, **query) -> list[str]:
    response = signed_in(user).get("/findings", query)
    assert response.status_code == 200
    return [packet.id for packet in response.context["queued"]]


def test_the_queue_holds_ones_own_and_the_teams_one_runs(alice, adam, bob, carol, dave, flagged):
    carols = packet_push(actor=carol, packet=leaky())
    assert queue(bob) == [flagged.id]
    assert queue(alice) == [flagged.id] and queue(adam) == [flagged.id]
    assert queue(carol) == [carols.id]  # her own, not bob's: a member does not review the team
    assert queue(dave) == []
    html = signed_in(alice).get("/findings").content.decode()
    assert "Deploy the runner" in html and "<code>next_step</code> (gitlab-token)" in html
    assert "pushed by bob" in html and TOKEN not in html


def test_the_queue_filters_by_team(alice, carol, flagged):
    make_team(alice, "beta")
    assert queue(alice, team="alpha") == [flagged.id]
    assert queue(alice, team="beta") == []
    assert queue(carol, team="alpha") == []
    assert signed_in(carol).get("/findings", {"team": "beta"}).status_code == 404


def test_a_creator_who_left_the_team_no_longer_reviews_what_they_pushed_there(alice, bob, alpha, flagged):
    from teams.services import team_leave

    team_leave(actor=bob, team=alpha)
    assert queue(bob) == [] and queue(alice) == [flagged.id]


def test_a_cleared_packet_leaves_the_queue(alice, flagged):
    clear(alice, flagged.id, "a fixture")
    assert queue(alice) == []


def test_the_navigation_links_the_queue_only_when_something_is_held(alice, dave, flagged):
    html = signed_in(alice).get("/teams").content.decode()
    assert 'href="/findings"' in html and re.search(r'id="held-packets"[^>]*>1<', html)
    html = signed_in(dave).get("/teams").content.decode()
    assert 'href="/findings"' not in html
    assert 'href="/findings" class="current"' in signed_in(dave).get("/findings").content.decode()
