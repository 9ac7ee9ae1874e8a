"""The thread view and the export buttons in a real browser."""

import json

import pytest

from packets.testing import push_packet
from teams.testing import make_team

from .testing import PASSWORD, sign_in, watch_csp

pytestmark = pytest.mark.browser


def test_thread_view_draws_the_chain_and_each_node_opens_its_packet(live_server, new_page, make_user, artifacts_dir):
    alice = make_user("alice", password=PASSWORD)
    root = push_packet(alice, goal="Find the flaky test", created_at="2026-03-01T09:00:00Z")
    middle = push_packet(alice, goal="Pin the seed", created_at="2026-03-02T09:00:00Z", parent_id=root.id)
    branch = push_packet(alice, goal="Try another runner", created_at="2026-03-03T09:00:00Z", parent_id=root.id)
    last = push_packet(alice, goal="Ship the fix", created_at="2026-03-04T09:00:00Z", parent_id=middle.id)

    page = new_page(width=1280)
    seen = watch_csp(page)
    sign_in(page, live_server.url, "alice")
    page.goto(f"{live_server.url}/packets/{middle.id}")
    assert page.locator(".packet-chain").get_by_role("link", name="Find the flaky test").is_visible()
    assert page.locator(".packet-chain").get_by_role("link", name="Ship the fix").is_visible()
    page.get_by_role("link", name="See the whole thread").click()
    page.wait_for_url(f"**/packets/{middle.id}/thread")

    nodes = page.locator("svg.thread-graph a.thread-node")
    assert nodes.count() == 4
    assert [nodes.nth(i).get_attribute("data-packet-id") for i in range(4)] == [root.id, middle.id, last.id, branch.id]
    assert page.locator("svg a.thread-node.current").get_attribute("data-packet-id") == middle.id
    assert page.locator("svg path.thread-edge").count() == 3
    # Drawn, not just present: the nodes have a size on screen, one under the other, each child
    # to the right of the packet it continues.
    boxes = [nodes.nth(i).locator("circle").bounding_box() for i in range(4)]
    assert all(box and box["width"] > 0 for box in boxes)
    assert [box["y"] for box in boxes] == sorted(box["y"] for box in boxes)
    assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"] and boxes[3]["x"] == boxes[1]["x"]
    page.screenshot(path=str(artifacts_dir / "thread-1280.png"), full_page=True)

    nodes.nth(2).locator("text.thread-goal").click()
    page.wait_for_url(f"**/packets/{last.id}")
    assert page.locator("h1.packet-goal").inner_text() == "Ship the fix"
    assert seen == []


def test_export_buttons_download_jsonl_and_markdown(live_server, new_page, make_user):
    alice = make_user("alice", password=PASSWORD)
    bob = make_user("bob", password=PASSWORD)
    alpha = make_team(alice, "alpha", members=[bob])
    mine = push_packet(alice, goal="My own work", created_at="2026-03-01T09:00:00Z")
    team_packet = push_packet(bob, team=alpha, goal="The team's work", created_at="2026-03-02T09:00:00Z")
    push_packet(bob, goal="Bob's private work")

    page = new_page(width=1280, accept_downloads=True)
    sign_in(page, live_server.url, "alice")
    page.goto(live_server.url + "/")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="JSON lines").click()
    download = download_info.value
    assert download.suggested_filename.startswith("ltm-export-all-") and download.suggested_filename.endswith(".jsonl")
    lines = open(download.path(), encoding="utf-8").read().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [mine.id, team_packet.id]

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Markdown").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".md")
    text = open(download.path(), encoding="utf-8").read()
    assert text.startswith("# ltm export") and "## My own work" in text and "## The team's work" in text
    assert "Bob's private work" not in text

    page.goto(live_server.url + "/?scope=team:alpha")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="JSON lines").click()
    download = download_info.value
    assert download.suggested_filename.startswith("ltm-export-team-alpha-")
    assert [json.loads(line)["id"] for line in open(download.path()).read().splitlines()] == [team_packet.id]
