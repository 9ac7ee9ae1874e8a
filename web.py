"""The hub's web server: `python web.py` runs hub.wsgi under granian, as the Procfile,
docker-compose.yml and the Docker image do. Settings come from the environment:

    WEB_HOST         the address to listen on (0.0.0.0; 127.0.0.1 keeps a local stack on loopback)
    PORT             the port (8000), as a process manager (honcho, foreman, a PaaS) hands it out
    WEB_CONCURRENCY  worker processes (default: one per CPU this process may run on)
    WEB_THREADS      Python threads per worker (1): each worker answers that many requests at once
    WEB_ACCESS_LOG   "0" leaves out the access log (one line per request on standard output); off
                     by default with LOG_FORMAT=json, where the hub writes each request's line itself
                     (with its request id, route and user)
    LOG_FORMAT       "json": the server's own lines as JSON objects too (core.logs.JsonLines)
    PROMETHEUS_MULTIPROC_DIR  the folder the web and Celery processes count their metrics in
                     (hub/metrics_dir.py); unset, the workers share one in the system's temporary
                     folder, and a Celery worker on the machine counts alone

Why granian, with one thread per worker: it reads and writes HTTP in Rust and keeps connections
alive, so a worker's Python time goes to the hub alone; more threads in one process would take
turns on the GIL, and the slowest answers wait for it (the measurements are in the manual's
Benchmarks page). Requests a worker has not reached yet wait inside it, in order.

Access lines name the request's path, which can hold an invite or claim code: every line of the
server's logs passes through core.logs.MaskSecrets first.
"""

import os
import tempfile

from granian import Granian
from granian.constants import Interfaces
from granian.http import HTTP1Settings
from granian.log import LOGGING_CONFIG

ACCESS_LINE = '%(addr)s - "%(method)s %(path)s %(protocol)s" %(status)d %(dt_ms).1fms'


def cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def logging_config(environ=os.environ) -> dict:
    """granian's own logging configuration, with the secrets filter on both of its loggers, and its
    lines as JSON objects with LOG_FORMAT=json."""
    config = {**LOGGING_CONFIG, "filters": {"mask_secrets": {"()": "core.logs.MaskSecrets"}}}
    config["handlers"] = {
        name: {**handler, "filters": ["mask_secrets"]} for name, handler in LOGGING_CONFIG["handlers"].items()
    }
    if environ.get("LOG_FORMAT") == "json":
        config["formatters"] = {name: {"()": "core.logs.JsonLines"} for name in LOGGING_CONFIG["formatters"]}
    return config


def metrics_folder(environ=os.environ):
    """This server's workers count their metrics in one folder (hub/metrics_dir.py), named for its
    port, under the deployment's PROMETHEUS_MULTIPROC_DIR, else under the system's temporary
    folder."""
    from hub.metrics_dir import LIBRARY_VARIABLE, ROOT_VARIABLE, claim

    port = environ.get("PORT", "8000")
    if not environ.get(ROOT_VARIABLE) and not environ.get(LIBRARY_VARIABLE):
        environ[LIBRARY_VARIABLE] = os.path.join(tempfile.gettempdir(), f"ltm-metrics-{port}")
    return claim(f"web-{port}", environ)


def server(environ=os.environ) -> Granian:
    """The server `python web.py` runs, with its settings read from `environ`."""
    return Granian(
        "hub.wsgi:application",
        interface=Interfaces.WSGI,
        address=environ.get("WEB_HOST", "0.0.0.0"),
        port=int(environ.get("PORT", "8000")),
        workers=int(environ.get("WEB_CONCURRENCY") or cpus()),
        blocking_threads=int(environ.get("WEB_THREADS") or 1),
        websockets=False,
        log_dictconfig=logging_config(environ),
        log_access=environ.get("WEB_ACCESS_LOG", "0" if environ.get("LOG_FORMAT") == "json" else "1") != "0",
        log_access_format=ACCESS_LINE,
        # As a process manager would: a worker that dies is replaced. On SIGTERM (a deploy, `docker
        # stop`, honcho) each worker stops taking connections and finishes the requests it holds;
        # without a kill timeout one stuck request would keep the server from ever exiting.
        respawn_failed_workers=True,
        workers_kill_timeout=30,
        # A request's head must arrive within 10 s (granian then closes the connection; it also
        # drops a keep-alive connection idle that long). Its body has no such bound in granian: the
        # hub reads it in the worker's one thread, so production puts proxy.py (nginx) in front,
        # which hands granian only whole requests (docs/production.md, "The reverse proxy").
        http1_settings=HTTP1Settings(header_read_timeout=10_000),
    )


if __name__ == "__main__":
    metrics_folder()
    server().serve()
