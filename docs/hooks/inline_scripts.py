"""MkDocs hook (mkdocs.yml `hooks:`): the manual runs under the hub's Content-Security-Policy,
whose `script-src 'self'` runs no inline script. Material writes a few small ones into every page
(the storage scope, the colour palette, the open tab); each moves into a file of its own under
assets/javascripts/inline/, named by its digest, and the page loads it from the same place, so it
still runs at the same moment, before the rest of the page. Data blocks (`<script
type="application/json">`) are not run, so they stay.

The theme's 404.html is removed: its links are absolute from the site's root, which is /docs/ on
the hub, and the hub answers an unknown page of the manual itself (core/docs_site.py)."""

import hashlib
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)
FOLDER = "assets/javascripts/inline"


def on_post_page(output, page, config):
    folder = Path(config["site_dir"]) / FOLDER

    def to_file(match):
        code = match.group(1)
        name = hashlib.sha256(code.encode()).hexdigest()[:16] + ".js"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(code, encoding="utf-8")
        return f'<script src="{get_relative_url(f"{FOLDER}/{name}", page.url)}"></script>'

    return INLINE_SCRIPT.sub(to_file, output)


def on_post_build(config):
    (Path(config["site_dir"]) / "404.html").unlink(missing_ok=True)
