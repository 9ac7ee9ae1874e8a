"""The front page in a real browser: it tells a newcomer how to connect the client."""

import pytest

pytestmark = pytest.mark.browser


def test_front_page_shows_the_auth_command_for_this_hub(live_server, page, artifacts_dir):
    page.goto(live_server.url + "/")
    commands = page.locator("#connect-client pre.cmd").all_inner_texts()
    assert commands[0] == f"ltm auth {live_server.url}"
    assert page.locator("#connect-client a", has_text="Get the client").get_attribute("href") == "/client/"
    page.screenshot(path=str(artifacts_dir / "home.png"), full_page=True)
