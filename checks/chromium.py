"""Where the system Chromium is and the flags it runs with: the browser tests (tests/e2e) and the
stack check's device flow (stack_check.py) start it alike."""

import os
import shutil
from pathlib import Path

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """LTM_CHROMIUM when it names a file, else the first `chromium` on the PATH; None: not found."""
    configured = os.environ.get("LTM_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")
