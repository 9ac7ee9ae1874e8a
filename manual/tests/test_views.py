"""The manual at /docs/: the hub serves the MkDocs site from its own files, with the right content
types, under its Content-Security-Policy, and nothing outside the site; unbuilt, it says how to
build it."""

import posixpath
import re
from email.utils import formatdate
from pathlib import Path

import pytest
import yaml
from django.test import Client

from manual.testing import ROOT, built_docs_site, nav_pages


@pytest.fixture
def site(settings):
    folder = built_docs_site()
    settings.LTM_DOCS_SITE_DIR = folder
    return folder


def _one(site: Path, pattern: str) -> str:
    """The URL under /docs/ of the one built file matching `pattern` (Material names its assets
    by their digest)."""
    (found,) = sorted(site.glob(pattern))
    return "/docs/" + found.relative_to(site).as_posix()


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_index_is_the_manuals_first_page(site):
    response = Client().get("/docs/")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    page = _body(response).decode()
    assert "<title>ltm hub</title>" in page
    assert 'href="tutorials/first-hour/"' in page  # the navigation, with links relative to /docs/
    assert "Content-Disposition" not in response


def test_every_page_of_the_navigation_is_served(site):
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    pages = nav_pages(nav)
    assert len(pages) >= 15 and all(page.endswith(".md") for page in pages)
    # Every Markdown file of docs/ is in the navigation (mkdocs --strict checks it too).
    docs = ROOT / "docs"
    assert sorted(pages) == sorted(path.relative_to(docs).as_posix() for path in docs.rglob("*.md"))
    client = Client()
    for page in pages:
        path = page.removesuffix("index.md") if page.endswith("index.md") else page.removesuffix(".md") + "/"
        url = "/docs/" + path
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == "text/html; charset=utf-8", url


def test_a_page_and_its_assets_answer_with_their_content_types(site):
    client = Client()
    page = client.get("/docs/tutorials/first-hour/")
    assert page.status_code == 200
    assert "make run" in _body(page).decode()
    for url, content_type in (
        (_one(site, "assets/stylesheets/main.*.min.css"), "text/css; charset=utf-8"),
        (_one(site, "assets/javascripts/bundle.*.min.js"), "text/javascript; charset=utf-8"),
        (_one(site, "assets/javascripts/workers/search.*.min.js"), "text/javascript; charset=utf-8"),
        ("/docs/search/search_index.json", "application/json"),
        ("/docs/assets/images/favicon.png", "image/png"),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == content_type, url
        assert _body(response) == (site / url.removeprefix("/docs/")).read_bytes()


def test_a_folder_without_its_slash_is_redirected_to_it(site):
    response = Client().get("/docs/tutorials/first-hour?x=1")
    assert response.status_code == 302
    assert response["Location"] == "/docs/tutorials/first-hour/?x=1"
    assert Client().get("/docs").status_code == 301  # CommonMiddleware's APPEND_SLASH


def test_an_unchanged_file_is_not_sent_again(site):
    stamp = (site / "index.html").stat().st_mtime
    response = Client().get("/docs/", HTTP_IF_MODIFIED_SINCE=formatdate(stamp + 1, usegmt=True))
    assert response.status_code == 304


def test_the_manual_runs_under_the_hubs_policy_with_data_images_only(site):
    policy = Client().get("/docs/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["img-src"] == "'self' data:"
    assert directives["default-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"


def test_the_built_pages_have_no_inline_script_or_style(site):
    """What the policy would block: the build moves Material's inline scripts into files
    (docs/hooks/inline_scripts.py) and writes table alignment as an attribute."""
    pages = list(site.rglob("*.html"))
    assert len(pages) >= 15
    for page in pages:
        html = page.read_text()
        for attributes in re.findall(r"<script\b([^>]*)>", html):
            assert "src=" in attributes or 'type="application/json"' in attributes, (page, attributes)
        assert "<style" not in html, page
        assert not re.search(r"\sstyle=", html), page
        # Nothing loaded from elsewhere (links to other sites are fine: they load nothing).
        assert not re.search(r"""\ssrc=["']?(https?:)?//""", html), page
        assert not re.search(r"""<link\b[^>]*href=["']?(https?:)?//""", html), page
        assert "fonts.googleapis" not in html and "fonts.gstatic" not in html, page


def test_the_extracted_scripts_are_served(site):
    html = _body(Client().get("/docs/tutorials/first-hour/")).decode()
    scripts = re.findall(r'<script src="(?:\.\./)+(assets/javascripts/inline/[0-9a-f]+\.js)"', html)
    assert scripts
    for script in scripts:
        response = Client().get(f"/docs/{script}")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/javascript; charset=utf-8"


@pytest.mark.parametrize(
    "path",
    [
        "/docs/../manage.py",
        "/docs/%2e%2e/manage.py",
        "/docs/assets/%2E%2E/%2E%2E/manage.py",
        "/docs/..%2fmanage.py",
        "/docs/..%5cmanage.py",
        "/docs/.hidden",
        "/docs/assets/.x",
        "/docs//etc/passwd",
        "/docs/nothing-here/",
        "/docs/tutorials/first-hour/nothing.html",
    ],
)
def test_nothing_outside_the_site_is_served(site, path):
    response = Client().get(path)
    assert response.status_code == 404, path
    assert b"root:" not in _body(response) and b"DJANGO_SETTINGS_MODULE" not in _body(response)


def test_a_symbolic_link_out_of_the_site_is_not_followed(settings, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>t</title>")
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    (site / "leak.txt").symlink_to(secret)
    (site / "out").symlink_to(tmp_path)
    settings.LTM_DOCS_SITE_DIR = site
    assert Client().get("/docs/").status_code == 200
    for path in ("/docs/leak.txt", "/docs/out/secret.txt"):
        response = Client().get(path)
        assert response.status_code == 404, path
        assert b"the secret" not in _body(response)


def test_an_unknown_page_says_so(site):
    response = Client().get("/docs/no-such-page/")
    assert response.status_code == 404
    assert "Not in the manual" in response.content.decode()
    assert response["Content-Type"] == "text/html; charset=utf-8"


def test_only_reading_is_allowed(site):
    assert Client().post("/docs/").status_code == 405
    assert Client().head("/docs/").status_code == 200


def test_an_unbuilt_manual_says_how_to_build_it(settings, tmp_path):
    settings.LTM_DOCS_SITE_DIR = tmp_path / "docs_site"
    response = Client().get("/docs/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "The manual is not built here" in page
    assert "make docs" in page
    assert Client().get("/docs/tutorials/first-hour/").status_code == 404


@pytest.mark.parametrize(
    ("old", "new"),
    [("quickstart", "tutorials/first-hour"), ("agents", "how-to/connect-an-agent"), ("api", "reference/api")],
)
def test_an_old_address_of_a_moved_page_leads_to_its_new_home(site, old, new):
    """Bookmarks made before the manual took its four parts still land on the page."""
    html = _body(Client().get(f"/docs/{old}/")).decode()
    assert f'<meta http-equiv="refresh" content="0; url=../{new}/">' in html
    (script,) = re.findall(r'<script src="(\.\./assets/javascripts/inline/[0-9a-f]+\.js)"', html)
    assert Client().get(posixpath.normpath(f"/docs/{old}/{script}")).status_code == 200
    assert Client().get(f"/docs/{new}/").status_code == 200
