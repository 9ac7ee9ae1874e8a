"""The manual built once per test run, into a temporary folder, from the sources as they are (the
tests do not depend on `make docs` having run, nor on docs_site/ being current), and the pages
its navigation lists."""

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def built_docs_site() -> Path:
    """Build with `mkdocs build --strict` (a broken link fails here as in CI) and return the folder."""
    site = Path(tempfile.mkdtemp(prefix="ltm-docs-site-"))
    atexit.register(shutil.rmtree, site, ignore_errors=True)
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"},
        timeout=300,
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return site


def nav_pages(nav) -> list[str]:
    """The Markdown files a navigation of mkdocs.yml (or a part of one) lists, in its order."""
    pages = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages
