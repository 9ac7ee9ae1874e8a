"""The home page in a real browser: the line that connects each agent, with this hub's URL, is on
screen, also on a phone-sized screen, and leads on to the manual and the client page."""

import pytest

from connect.agents import AGENT_LINES, HUB

pytestmark = pytest.mark.browser


def _fits(page) -> bool:
    """Nothing wider than the screen (no sideways scrolling)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("width", [1280, 390])
def test_every_agent_line_is_visible_with_this_hubs_url(live_server, new_page, artifacts_dir, width):
    page = new_page(width=width)
    page.goto(live_server.url + "/")
    section = page.locator("#connect-agent")
    assert section.locator("h2").inner_text() == "Connect your agent"
    lines = section.locator("pre.cmd")
    shown = lines.all_inner_texts()
    for agent in AGENT_LINES:
        expected = agent.line.replace(HUB, live_server.url)
        assert expected in shown, agent.agent
        assert lines.nth(shown.index(expected)).is_visible(), agent.agent
    assert section.locator("pre.cmd").first.inner_text() == f"claude mcp add --transport http ltm {live_server.url}/mcp"
    assert _fits(page)
    page.screenshot(path=str(artifacts_dir / f"home-agents-{width}.png"), full_page=True)


def test_the_home_page_leads_to_the_manual_and_the_client_page(live_server, page):
    page.goto(live_server.url + "/")
    page.locator("#connect-agent a", has_text="Connect your agent").click()
    assert page.url == f"{live_server.url}/docs/how-to/connect-an-agent/"
    page.goto(live_server.url + "/")
    page.locator("#connect-client a", has_text="Get the client").click()
    assert page.url == f"{live_server.url}/client/"
    assert page.locator("pre.cmd", has_text=f"ltm auth {live_server.url}").is_visible()
