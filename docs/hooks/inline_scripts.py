"""MkDocs hook (mkdocs.yml `hooks:`): the manual runs under the hub's Content-Security-Policy,
whose `script-src 'self'` runs no inline script. Material writes a few small ones into every page
(the storage scope, the colour palette, the open tab); each moves into a file of its own under
assets/javascripts/inline/, named by its digest, and the page loads it from the same place, so it
still runs at the same moment, before the rest of the page. Data blocks (`<script
type="application/json">`) are not run, so they stay.

The theme's 404.html is removed: its links are absolute from the site's root, which is /docs/ on
the hub, and the hub answers an unknown page of the manual itself (manual/views.py)."""

import hashlib
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
FOLDER = "assets/javascripts/inline"


def _scripts_to_files(html: str, url: str, site_dir: str) -> str:
    """`html`, served at `url` (relative to the site's root), with each inline script moved into
    a file of its own under FOLDER."""
    folder = Path(site_dir) / FOLDER

    def to_file(match):
        code = match.group(1)
        name = hashlib.sha256(code.encode()).hexdigest()[:16] + ".js"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(code, encoding="utf-8")
        return f'<script src="{get_relative_url(f"{FOLDER}/{name}", url)}"></script>'

    return INLINE_SCRIPT.sub(to_file, html)


def on_post_page(output, page, config):
    return _scripts_to_files(output, page.url, config["site_dir"])


def on_post_build(config):
    site = Path(config["site_dir"])
    (site / "404.html").unlink(missing_ok=True)
    # Pages written after the pages themselves (mkdocs-redirects' pages for moved addresses)
    # carry an inline script of their own.
    for html_file in site.rglob("*.html"):
        html = html_file.read_text(encoding="utf-8")
        if INLINE_SCRIPT.search(html):
            url = html_file.relative_to(site).as_posix()
            html_file.write_text(_scripts_to_files(html, url, config["site_dir"]), encoding="utf-8")
