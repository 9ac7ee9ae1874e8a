"""The hub's metrics (prometheus-client), and the text a scrape of /metrics reads.

Production runs several web workers and Celery workers: each process counts in files of its own
(the library's multiprocess mode, PROMETHEUS_MULTIPROC_DIR, set up by web.py and hub/celery.py
through hub.metrics_dir), and a scrape adds them up. What is true at the moment of the scrape (is
the database up, how long is the queue) is asked then, by DependencyCollector, not counted.

No label carries a person, a token or a packet: requests are labelled by route pattern
(`v1/packets/<str:packet_id>`), method and status, all of them few.
"""

import os
from pathlib import Path

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from ops import health
from ops.build import build_info

REQUESTS = Counter(
    "ltm_http_requests",
    "HTTP requests answered, by route pattern, method and status.",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "ltm_http_request_duration_seconds",
    "Time to answer an HTTP request, by route pattern.",
    ["route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
# What people do, wherever they do it (API, dashboard, MCP): ops.counters counts them.
PACKETS_PUSHED = Counter("ltm_packets_pushed", "Packets pushed (new or replaced), by scope.", ["scope"])
SEARCHES = Counter("ltm_searches", "Searches answered, by surface (api, dashboard).", ["surface"])
SHARES = Counter("ltm_shares", "Packets shared by name, by the packet's scope.", ["scope"])
PACKETS_FLAGGED = Counter("ltm_packets_flagged", "Packets the secret scan held back, by how.", ["how"])
# Counted by the webhooks app's delivery task (issue 43): result is delivered, failed, gone (410),
# or retried. Declared here so the name is one the dashboards can rely on before it lands.
WEBHOOK_DELIVERIES = Counter("ltm_webhook_deliveries", "Webhook delivery attempts, by result.", ["result"])

# Methods outside this set are counted as "other", so a caller cannot grow the label's values.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def metric_folders() -> list[Path]:
    """The folders every process of this deployment counts in: each kind of process (web,
    worker) has its own under LTM_METRICS_ROOT (hub.metrics_dir); a PROMETHEUS_MULTIPROC_DIR set
    without it (another server than web.py) is read as it is. None: this process counts alone."""
    root = os.environ.get("LTM_METRICS_ROOT")
    if root:
        return sorted(folder for folder in Path(root).iterdir() if folder.is_dir())
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return [Path(folder)] if folder else []


def exposition() -> bytes:
    """The Prometheus text of a scrape: every process's counts, then what holds right now."""
    registry = CollectorRegistry()
    folders = metric_folders()
    registry.register(AllProcesses(folders) if folders else ThisProcess())
    registry.register(NowCollector())
    return generate_latest(registry)


class AllProcesses:
    """Every process's files, of every folder, merged into one family per metric: a collector per
    folder would write a series once per folder (two web servers count the same routes), and Prometheus
    keeps one of a duplicated series, not their sum."""

    def __init__(self, folders: list[Path]):
        self.folders = folders

    def collect(self):
        files = sorted(str(file) for folder in self.folders for file in folder.glob("*.db"))
        return MultiProcessCollector.merge(files, accumulate=True)


class ThisProcess:
    """Without a metrics folder (`make run`, tests) the counts are this process's own."""

    def collect(self):
        yield from REGISTRY.collect()


class NowCollector:
    """Asked at each scrape: the build, the dependencies' availability, the queues' lengths."""

    def collect(self):
        info = InfoMetricFamily("ltm_build", "The hub's version and the commit it was built from.")
        info.add_metric([], build_info())
        yield info
        up = GaugeMetricFamily("ltm_dependency_up", "1 when the dependency answers, 0 when not.", labels=["dependency"])
        for name, state in (("database", health.database_state()), ("redis", health.cache_state())):
            if state != health.NOT_CONFIGURED:
                up.add_metric([name], 1.0 if state == health.OK else 0.0)
        yield up
        queue = GaugeMetricFamily("ltm_celery_queue_length", "Tasks waiting in the broker's queue.", labels=["queue"])
        for name, length in health.queue_lengths().items():
            queue.add_metric([name], float(length))
        yield queue
        outbox = health.outbox_backlog()
        if outbox is not None:
            yield GaugeMetricFamily("ltm_outbox_waiting", "Work written to the outbox, not yet queued.", value=outbox)


def route_of(request) -> str:
    """The URL pattern that answered (never the path, which holds ids and codes)."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"
    return match.route or match.view_name or "unnamed"


def observe(request, response, seconds: float) -> None:
    route = route_of(request)
    method = request.method if request.method in METHODS else "other"
    REQUESTS.labels(route, method, str(response.status_code)).inc()
    LATENCY.labels(route).observe(seconds)
    if response.status_code == 200:
        if route == "v1/search":
            SEARCHES.labels("api").inc()
        elif route == "home" and request.GET.get("q"):
            SEARCHES.labels("dashboard").inc()
