"""The manual (/docs/) and the API reference (/v1/docs) in a real browser, under the hub's
Content-Security-Policy: they render, and the browser reports no violation (but Redoc's badge,
an image it asks of its makers' CDN, which the policy rightly refuses)."""

import pytest

from manual.testing import built_docs_site

pytestmark = pytest.mark.browser

# Every violation the page reports, from the moment it starts (Playwright's init script runs
# before the page's own and is not subject to its policy).
WATCH_CSP = (
    "window.__csp = [];"
    "document.addEventListener('securitypolicyviolation',"
    " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
)
REDOC_BADGE = "img-src https://cdn.redoc.ly/redoc/logo-mini.svg"


def _watch(page):
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.add_init_script(WATCH_CSP)
    return errors


@pytest.fixture
def manual(settings):
    settings.LTM_DOCS_SITE_DIR = built_docs_site()


SECTIONS = {  # each part of the manual: its landing page, and a page of it reached from there
    "Tutorials": ("tutorials", "Your first hour"),
    "How-to guides": ("how-to", "Connect Claude Code"),
    "Reference": ("reference", "MCP tools"),
    "Explanation": ("explanation", "The security model"),
}


def test_the_manual_renders_under_the_policy(live_server, manual, page, artifacts_dir):
    errors = _watch(page)
    page.goto(live_server.url + "/docs/")
    nav = page.locator("nav.md-nav--primary")
    for section in SECTIONS:
        assert nav.get_by_role("link", name=section, exact=True).first.is_visible(), section
    # Material's stylesheet and script ran: the header is styled and the search box is there.
    assert page.locator("header.md-header").evaluate("e => getComputedStyle(e).position") == "sticky"
    page.screenshot(path=str(artifacts_dir / "docs-index.png"), full_page=True)

    # Each part opens on its landing page, which lists its pages; one of them opens from there.
    for section, (folder, title) in SECTIONS.items():
        page.goto(live_server.url + "/docs/")
        page.locator("nav.md-nav--primary").get_by_role("link", name=section, exact=True).first.click()
        page.wait_for_url(f"**/docs/{folder}/")
        assert page.locator("h1").inner_text().startswith(section)
        page.screenshot(path=str(artifacts_dir / f"docs-{folder}.png"), full_page=True)
        page.locator("article").get_by_role("link", name=title).first.click()
        page.wait_for_url(f"**/docs/{folder}/*/")
        assert page.locator("h1").inner_text().startswith(title)
        assert page.title() == f"{title} - ltm hub"
        page.screenshot(path=str(artifacts_dir / f"docs-{folder}-page.png"), full_page=True)

    # Search runs in a worker from the site's own files and reads the site's own index.
    page.locator("input.md-search__input").click()
    page.keyboard.type("device flow", delay=20)  # keystrokes: Material searches as one types
    page.locator(".md-search-result__item", has_text="Sign-in and devices").first.wait_for()
    page.screenshot(path=str(artifacts_dir / "docs-search.png"))
    assert page.evaluate("window.__csp") == []
    assert errors == []


def test_an_unbuilt_manual_says_how_to_build_it_in_the_browser(live_server, settings, tmp_path, page):
    settings.LTM_DOCS_SITE_DIR = tmp_path / "nothing"
    errors = _watch(page)
    page.goto(live_server.url + "/docs/")
    assert page.locator("h1").inner_text() == "The manual is not built here"
    assert "make docs" in page.locator("main").inner_text()
    assert page.evaluate("window.__csp") == []
    assert not [error for error in errors if "404" not in error]  # the page's own status


def test_the_api_reference_renders_its_operations(live_server, page, artifacts_dir):
    errors = _watch(page)
    page.goto(live_server.url + "/v1/docs")
    # Each operation is a heading of the main panel (the side menu's entries stay folded).
    page.locator("h2", has_text="Push a packet").first.wait_for()
    text = page.locator("body").inner_text()
    assert "Something went wrong" not in text
    for summary in ("List packets, newest first", "Search packets, best first", "Create a team"):
        assert summary in text, summary
    page.screenshot(path=str(artifacts_dir / "api-docs.png"))
    assert [violation for violation in page.evaluate("window.__csp") if violation != REDOC_BADGE] == []
    assert [error for error in errors if "cdn.redoc.ly" not in error] == []
