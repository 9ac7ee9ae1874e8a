"""The dashboard's thread page and export downloads, and what the public page adds for a reader
with a terminal."""

import json
import re

import pytest
from django.test import Client

from core.testing import signed_in
from packets import services
from packets.models import Packet
from packets.publishing import services as publishing
from packets.testing import packet_v02, push_packet
from teams.testing import make_team

pytestmark = pytest.mark.django_db


def test_thread_page_draws_each_readable_packet_as_a_link(alice):
    root = push_packet(alice, goal="Root <b>goal</b>", created_at="2026-01-01T00:00:00Z")
    child = push_packet(alice, goal="Child", created_at="2026-01-02T00:00:00Z", parent_id=root.id)
    page = signed_in(alice).get(f"/packets/{child.id}/thread")
    assert page.status_code == 200
    text = page.content.decode()
    assert "<svg" in text and "Root &lt;b&gt;goal&lt;/b&gt;" in text
    links = re.findall(r'<a class="thread-node( current)?" href="([^"]+)"', text)
    assert links == [("", f"/packets/{root.id}"), (" current", f"/packets/{child.id}")]
    # One elbow line, from the root (row 0) down to the child (row 1), one step to the right.
    assert re.findall(r'class="thread-edge" d="([^"]+)"', text) == ["M 16 22 V 78 H 44"]


def test_thread_page_of_someone_elses_packet_is_404(alice, bob):
    packet = push_packet(alice)
    assert signed_in(bob).get(f"/packets/{packet.id}/thread").status_code == 404
    assert Client().get(f"/packets/{packet.id}/thread").status_code == 302  # to sign in


def test_packet_page_links_both_ways_and_to_the_thread(alice):
    root = push_packet(alice, goal="The root", created_at="2026-01-01T00:00:00Z")
    child = push_packet(alice, goal="The child", created_at="2026-01-02T00:00:00Z", parent_id=root.id)
    root_page = signed_in(alice).get(f"/packets/{root.id}").content.decode()
    assert "Continued by" in root_page and f'href="/packets/{child.id}"' in root_page
    child_page = signed_in(alice).get(f"/packets/{child.id}").content.decode()
    assert "Continues" in child_page and f'href="/packets/{root.id}"' in child_page
    assert f'href="/packets/{child.id}/thread"' in child_page


@pytest.mark.parametrize(("format", "content_type"), [("jsonl", "application/x-ndjson"), ("markdown", "text/markdown")])
def test_dashboard_export_downloads_everything_readable(alice, bob, format, content_type):
    alpha = make_team(alice, "alpha", members=[bob])
    mine = push_packet(alice, goal="Mine")
    team_packet = push_packet(bob, team=alpha, goal="The team's")
    push_packet(bob, goal="Bob's own")
    response = signed_in(alice).get(f"/export/{format}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith(content_type)
    assert "attachment" in response["Content-Disposition"]
    body = b"".join(response.streaming_content).decode()
    if format == "jsonl":
        assert sorted(json.loads(line)["id"] for line in body.splitlines()) == sorted([mine.id, team_packet.id])
    else:
        assert "## Mine" in body and "## The team's" in body and "Bob's own" not in body


def test_dashboard_export_of_a_team(alice, bob):
    alpha = make_team(alice, "alpha", members=[bob])
    push_packet(alice, goal="Mine")
    team_packet = push_packet(bob, team=alpha)
    body = b"".join(signed_in(alice).get("/export/jsonl?team=alpha").streaming_content).decode()
    assert [json.loads(line)["id"] for line in body.splitlines()] == [team_packet.id]
    assert signed_in(alice).get("/export/jsonl?team=nosuch").status_code == 404
    assert signed_in(alice).get("/export/xml").status_code == 404


def test_list_offers_the_downloads_for_its_scope(alice):
    make_team(alice, "alpha")
    push_packet(alice)
    page = signed_in(alice).get("/").content.decode()
    assert 'href="/export/jsonl"' in page and 'href="/export/markdown"' in page
    page = signed_in(alice).get("/?scope=team:alpha").content.decode()
    assert 'href="/export/jsonl?team=alpha"' in page


def test_public_page_says_who_shared_it_and_how_to_resume_it(alice):
    alice.display = "Alice Liddell"
    alice.save()
    packet = packet_v02()
    services.packet_push(actor=alice, packet=packet)
    slug = publishing.packet_publish(actor=alice, packet_id=packet["id"]).public_slug
    text = Client().get(f"/p/{slug}").content.decode()
    assert "Shared by <strong>Alice Liddell</strong>" in text
    assert f"ltm resume http://testserver/p/{slug}" in text
    assert 'class="get-client"' in text


def test_thread_page_puts_each_packet_under_the_one_it_continues(alice):
    """Depth first: a later sibling comes after the earlier one's whole branch, and a cycle of
    parent_ids is still drawn, once each."""
    root = push_packet(alice, created_at="2026-01-01T00:00:00Z")
    early = push_packet(alice, created_at="2026-01-02T00:00:00Z", parent_id=root.id)
    late = push_packet(alice, created_at="2026-01-03T00:00:00Z", parent_id=root.id)
    grandchild = push_packet(alice, created_at="2026-01-04T00:00:00Z", parent_id=early.id)
    text = signed_in(alice).get(f"/packets/{root.id}/thread").content.decode()
    assert re.findall(r'data-packet-id="([^"]+)"', text) == [root.id, early.id, grandchild.id, late.id]
    edges = re.findall(r'class="thread-edge" d="([^"]+)"', text)
    assert edges == ["M 16 22 V 78 H 44", "M 44 78 V 134 H 72", "M 16 22 V 190 H 44"]


def test_thread_page_of_a_cycle(alice):
    a, b = push_packet(alice, created_at="2026-01-01T00:00:00Z"), push_packet(alice, created_at="2026-01-02T00:00:00Z")
    Packet.objects.filter(pk=a.id).update(parent_id=b.id)
    Packet.objects.filter(pk=b.id).update(parent_id=a.id)
    text = signed_in(alice).get(f"/packets/{a.id}/thread").content.decode()
    assert re.findall(r'data-packet-id="([^"]+)"', text) == [a.id, b.id]
