"""Where each process counts its metrics (prometheus-client's multiprocess mode).

PROMETHEUS_MULTIPROC_DIR names a folder shared by the web and Celery processes of one deployment
(compose mounts one volume in both). Each server counts in a subfolder of its own, which it
empties as it starts (the library's rule: files of an earlier run must not be added again),
without touching the others', whose processes may still be running: web.py claims `web-<port>`
before granian forks its workers, a Celery worker `worker-<its name>` before it forks its pool.
A scrape of /metrics adds up every subfolder (ops.metrics). The root is kept in LTM_METRICS_ROOT,
since the library reads PROMETHEUS_MULTIPROC_DIR as the process's own folder.

Only names the library reads at a metric's first count: every metric of the hub has labels, so
none counts before its process has claimed its folder.
"""

import os
import shutil
from pathlib import Path

LIBRARY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
ROOT_VARIABLE = "LTM_METRICS_ROOT"


def claim(name: str, environ=os.environ) -> Path | None:
    """This process and its children count in <root>/<name>, emptied now; None without a root."""
    root = environ.get(ROOT_VARIABLE) or environ.get(LIBRARY_VARIABLE)
    if not root:
        return None
    folder = Path(root) / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    environ[ROOT_VARIABLE] = root
    environ[LIBRARY_VARIABLE] = str(folder)
    return folder
