"""What this hub is: its version (settings.LTM_VERSION, from hub/__init__.py) and the commit it was
built from (LTM_COMMIT, which the Docker image sets at build time, else asked of git once)."""

import functools
import subprocess

from django.conf import settings


@functools.cache
def commit() -> str:
    if settings.LTM_COMMIT:
        return settings.LTM_COMMIT
    try:
        answer = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"  # no git, or not a checkout (an image built without LTM_COMMIT)
    return answer.stdout.strip() or "unknown"


def build_info() -> dict[str, str]:
    return {"version": settings.LTM_VERSION, "commit": commit()}
