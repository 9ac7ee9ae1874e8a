"""The packets page's search in a real browser: words in any order find packets from any field,
the matched words are highlighted (and packet text stays text), and the scope filter narrows the
results to personal packets or one team's."""

import pytest

from packets.testing import push_packet
from teams.testing import make_team

from .testing import PASSWORD, sign_in

pytestmark = pytest.mark.browser


def search(page, words, scope=None, mode="keyword"):
    """The results of a search from the dashboard's form; by words unless `mode` says otherwise
    (meaning would add the packets near these, which the highlighting checks do not expect)."""
    page.fill("input[name=q]", words)
    page.select_option("select[name=mode]", value=mode)
    if scope is not None:
        page.select_option("select[name=scope]", label=scope)
    page.click("form[role=search] button[type=submit]")
    page.wait_for_load_state()
    return page.locator(".plist-row")


def test_dashboard_search_highlights_and_filters_by_scope(live_server, new_page, artifacts_dir, make_user):
    ada, grace = make_user("ada", password=PASSWORD), make_user("grace", password=PASSWORD)
    compilers = make_team(ada, "compilers", members=[grace])
    personal = push_packet(
        ada, goal="Stop the flaky test <b>#107</b> on CI", next_step="Pin the clock", created_at="2026-04-01T00:00:00Z"
    )
    team = push_packet(
        grace,
        team=compilers,
        goal="Speed up the parser",
        next_step="Profile the lexer",
        attempts=[{"tried": "Retried the flaky tests", "outcome": "failed", "learned": "Timing"}],
        created_at="2026-04-02T00:00:00Z",
    )
    push_packet(ada, goal="Rotate the leaked password", created_at="2026-04-03T00:00:00Z")
    push_packet(grace, goal="Grace's own flaky tests", created_at="2026-04-04T00:00:00Z")  # never ada's

    page = new_page()
    sign_in(page, live_server.url, "ada")
    rows = search(page, "tests FLAKY")
    assert rows.count() == 2
    assert rows.first.locator(".plist-goal").inner_text() == "Stop the flaky test <b>#107</b> on CI"
    assert rows.first.locator(".plist-goal mark").all_inner_texts() == ["flaky", "test"]
    assert rows.first.locator(".plist-goal b").count() == 0  # the packet's text is never HTML
    assert rows.nth(1).locator(".plist-snippet").text_content().split() == ["Match", "Retried", "the", "flaky", "tests"]
    assert rows.nth(1).locator(".plist-snippet mark").all_inner_texts() == ["flaky", "tests"]
    assert rows.nth(1).locator(".badge", has_text="team compilers").is_visible()
    assert "Grace's own" not in page.content()
    page.screenshot(path=str(artifacts_dir / "dashboard-search.png"), full_page=True)

    rows = search(page, "flaky tests", scope="Team compilers")
    assert [row.get_attribute("href") for row in rows.locator(".plist-goal").all()] == [f"/packets/{team.id}"]
    rows = search(page, "flaky tests", scope="Personal")
    assert [row.get_attribute("href") for row in rows.locator(".plist-goal").all()] == [f"/packets/{personal.id}"]
    rows = search(page, '"flaky test" -clock', scope="All packets")
    assert rows.count() == 1 and rows.first.locator(".badge", has_text="team compilers").is_visible()

    rows = search(page, team.id)
    assert rows.first.locator(".plist-goal").get_attribute("href") == f"/packets/{team.id}"
    rows = search(page, "zebra")
    assert rows.count() == 0 and page.locator("text=No packet matches these filters.").is_visible()
