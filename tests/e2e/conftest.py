"""Browser tests: Playwright driving the system Chromium against pytest-django's live server.

Without Chromium they skip with a message that says how to enable them; in CI (CI=true) they
fail instead, so a green CI always means the browser really ran. Screenshots go to
artifacts/screenshots/ (ARTIFACTS_DIR overrides the folder).
"""

import os
from pathlib import Path

import pytest

from checks.chromium import CHROMIUM_FLAGS, chromium_path

# Playwright's sync API runs an event loop in the test's thread; the test still talks to the
# database synchronously (fixtures, assertions), which Django allows with this switch.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    folder = Path(os.environ.get("ARTIFACTS_DIR", Path(__file__).resolve().parents[2] / "artifacts")) / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def browser():
    executable = chromium_path()
    if executable is None:
        message = (
            "Chromium not found: install it (Debian: apt-get install chromium) or set LTM_CHROMIUM "
            "to its path to run the browser tests"
        )
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser):
    """new_page(width=1280) -> a page in a fresh context (no cookies shared between people)."""
    contexts = []

    def make(width: int = 1280, height: int = 900, **options):
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page):
    return new_page()


@pytest.fixture(autouse=True)
def _ltm_cli_application(request):
    """live_server tests flush the database after each test, and with it the `ltm-cli` OAuth
    client the migrations made; put it back so `ltm auth` works in every browser test."""
    if "live_server" in request.fixturenames:
        request.getfixturevalue("transactional_db")
        from oauth.testing import ensure_cli_application

        ensure_cli_application()
