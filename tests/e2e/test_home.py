"""The front page in a real browser: it tells a newcomer how to connect the client."""

import pytest

pytestmark = pytest.mark.browser


def test_front_page_shows_the_auth_command_for_this_hub(live_server, page, artifacts_dir):
    page.goto(live_server.url + "/")
    commands = page.locator("pre.cmd").all_inner_texts()
    assert commands[0] == f"ltm auth {live_server.url}"
    assert "pip install ./cli" in page.locator("main").inner_text()
    page.screenshot(path=str(artifacts_dir / "home.png"), full_page=True)
