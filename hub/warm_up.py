"""What a worker process does once it has started and before its first request: it builds what
the first requests would otherwise build while their clients wait (the URLconf and every view it
imports, the pages' templates, the push's validators and secret scan, Django's and DRF's lazily made parts,
the database connection; on SQLite, the search index built or brought up to date by a thread of
its own), then moves everything it holds out of the garbage collector's way.

Why the freeze (gc.freeze): the loaded hub is a few hundred thousand objects that live as long as
the process. Left in the collector's oldest generation, every full collection walks all of them,
and the request during which one runs waits for it. Frozen, a collection walks only what was made
since.

Each web worker calls warm_up() as it loads hub/wsgi.py (granian loads the application in each
worker after forking it), and so does each Celery worker process (hub/celery.py,
worker_process_init). settings.LTM_WARM_UP turns both off (the tests, which import hub.wsgi).
Left lazy on purpose: the MCP SDK (mcp_remote/views.py), which a process loads on its first /mcp
call so that processes that never serve MCP do not carry it.
"""

import gc
import io
import logging
import time
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django.template.loader import get_template
from django.urls import URLResolver, get_resolver, reverse

logger = logging.getLogger(__name__)

# Answered without a database or a person: the wire API's health check (the handler, the API's
# middleware, a DRF view, its renderer), the home page and the sign-in page (the site's
# middleware, the templates they extend and include, the form renderer and its templates).
PAGES = ["healthz", "home", "account_login"]


def warm_up(application=None) -> None:
    """Build what the first requests would, then freeze what the process holds. A web worker
    passes its WSGI `application`: the pages go through it, and the database connection is opened.
    A Celery worker passes none: Celery closes the connections of a new worker process right after
    this and around each task. A step that fails is logged and skipped: a worker that could not
    warm up still serves."""
    started = time.monotonic()
    steps = [_urls, _templates, _push_checks]
    if application is not None:
        steps += [lambda: _pages(application), _database, _search_index]
    for step in steps:
        try:
            step()
        except Exception:
            logger.exception("warm-up: a step failed; the first request that needs it does it")
    gc.collect()
    gc.freeze()
    logger.info(
        "warmed up in %.0f ms; %d objects frozen out of the garbage collector's way",
        (time.monotonic() - started) * 1000,
        gc.get_freeze_count(),
    )


def _urls(resolver: URLResolver | None = None) -> None:
    """The URLconf imported and each resolver's reverse lookups built, which compiles every
    pattern (a namespace's resolver builds its own on first use)."""
    resolver = resolver or get_resolver()
    resolver.reverse_dict  # noqa: B018 - a lazy property: reading it builds it
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            _urls(pattern)


def _templates() -> None:
    """The project's templates, compiled into the cached loader, with the template tag libraries
    they load."""
    for folder in settings.TEMPLATES[0]["DIRS"]:
        for path in sorted(Path(folder).rglob("*.html")):
            get_template(path.relative_to(folder).as_posix())


def _push_checks() -> None:
    """What a push checks a packet with: both validators of each supported version, compiled from
    the protocol's JSON Schema (the fast one every push runs, and the one that words what is wrong
    with a refused packet), and the secret scan's patterns, also those it builds on first need."""
    from ltm.protocol.packet import SUPPORTED_VERSIONS, example_packet, packet_errors
    from packets.scan.detect import scan_packet

    for version in SUPPORTED_VERSIONS:
        packet_errors(dict(example_packet(), ltm_version=version))
        packet_errors({"ltm_version": version})
    scan_packet(example_packet())
    scan_packet({"goal": "Caf\u00e9 50%25 \u00bd", "next_step": "line\nbreak"})  # what a disguise is taken off


def _pages(application) -> None:
    """Each of PAGES through the whole stack, as a first request would."""
    host = next((h.lstrip(".") for h in settings.ALLOWED_HOSTS if h.lstrip(".") not in ("", "*")), "localhost")
    for name in PAGES:
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": reverse(name),
            "SCRIPT_NAME": "",
            "QUERY_STRING": "",
            "SERVER_NAME": host,
            "SERVER_PORT": "443",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": host,
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.input": io.BytesIO(),
            "wsgi.url_scheme": "https",  # as the hub is reached in production: no redirect to https
        }
        answer = application(environ, lambda status, headers, exc_info=None: None)
        b"".join(answer)
        answer.close()


def _database() -> None:
    """The connection opened now rather than by the first request, and the ORM's SQL compiler
    loaded. A database that does not answer yet is not the warm-up's to report: the first request
    that needs it fails as it would have."""
    connection.ops.compiler("SQLCompiler")
    try:
        connection.ensure_connection()
    except DatabaseError as error:
        logger.warning("warm-up: the database did not answer (%s); the first request will connect", error)


def _search_index() -> None:
    """SQLite's search index brought up to date by this worker's thread, off the requests."""
    from packets.search.queue import index_if_behind

    index_if_behind()
