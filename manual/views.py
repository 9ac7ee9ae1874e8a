"""The manual at /docs/: the MkDocs site that `make docs` builds from docs/ into docs_site/, served
by the hub from its own files, in development (`make run` builds it first) and in production (the
Docker image builds it; the web server, granian, serves it through this view).

Only files inside the built folder are served: a path with a `..`, a hidden segment (`.git`) or a
backslash is a 404 before the file system is asked, and what the path resolves to (symbolic links
included) must still lie inside the folder. A folder is served as its index.html, and a folder
asked for without its final slash is redirected to it, since the pages' relative links assume it.
When the site is not built, /docs/ says how to build it.

The pages run under the hub's Content-Security-Policy: the build moves Material's inline scripts
into files (docs/hooks/inline_scripts.py), so `script-src 'self'` holds; the only loosening is
`img-src data:`, for the icons Material's stylesheet draws from data: URLs."""

import mimetypes
from pathlib import Path

from csp.decorators import csp_update
from django.conf import settings
from django.http import FileResponse, HttpResponseNotModified, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import http_date
from django.views.decorators.http import require_safe
from django.views.static import was_modified_since

URL_PREFIX = "/docs/"

# The site's own types, so that the answer does not depend on the machine's /etc/mime.types.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".xml": "application/xml",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
    ".woff2": "font/woff2",
}

# Material's stylesheet draws its icons (admonitions, lists, the search box) from data: URLs.
DOCS_CSP_UPDATE = {"img-src": ["data:"]}


def site_root() -> Path:
    """The built site: docs_site/ beside manage.py (tests point LTM_DOCS_SITE_DIR elsewhere)."""
    return Path(getattr(settings, "LTM_DOCS_SITE_DIR", settings.BASE_DIR / "docs_site"))


def is_built(root: Path | None = None) -> bool:
    return ((root or site_root()) / "index.html").is_file()


def _resolve(root: Path, path: str) -> Path | None:
    """The file or folder `path` names inside `root`, or None: never anything outside it."""
    parts = [part for part in path.split("/") if part]
    if any(part.startswith(".") or "\\" in part or "\x00" in part for part in parts):
        return None
    try:
        base = root.resolve(strict=True)
        resolved = base.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    return resolved if resolved.is_relative_to(base) else None


def content_type(file: Path) -> str:
    return CONTENT_TYPES.get(file.suffix.lower()) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"


@csp_update(DOCS_CSP_UPDATE)
@require_safe
def page(request, path=""):
    root = site_root()
    if not is_built(root):
        return render(request, "docs/not_built.html", {"site_root": root}, status=404)
    target = _resolve(root, path)
    if target is not None and target.is_dir():
        if path and not path.endswith("/"):
            query = request.META.get("QUERY_STRING", "")
            return HttpResponseRedirect(f"{URL_PREFIX}{path}/" + (f"?{query}" if query else ""))
        target = target / "index.html"
    if target is None or not target.is_file():
        return render(request, "docs/not_found.html", {"path": path}, status=404)
    stat = target.stat()
    if not was_modified_since(request.META.get("HTTP_IF_MODIFIED_SINCE"), stat.st_mtime):
        return HttpResponseNotModified()
    response = FileResponse(target.open("rb"), content_type=content_type(target))
    del response["Content-Disposition"]  # a page to read, not a file to save
    response["Last-Modified"] = http_date(stat.st_mtime)
    # Material's assets carry a digest in their names; pages change with a deploy. A short
    # lifetime keeps both fresh without asking on every click.
    response["Cache-Control"] = "public, max-age=300"
    return response
