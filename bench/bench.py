"""Benchmark of the packets wire API under gunicorn.

Starts the hub under gunicorn against the database of DATABASE_URL (default: a throw-away SQLite
file), seeds packets for one user, then drives healthz, push, list (limit 50) and pull with
concurrent clients for a fixed number of requests each, and prints requests per second,
p50/p95/p99 latency and each endpoint's throughput as a ratio of healthz.

    make bench                                   # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ltm_bench make bench
    python bench/bench.py --packets 10000 --requests 2000 --clients 8 --workers 3
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.client import HTTPConnection
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def setup_database(packet_count: int) -> tuple[str, str]:
    """Migrate, create the bench user and its token, seed packets. Returns (token, a packet id)."""
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import api_token_create, user_upsert
    from ltm.protocol.packet import canonical_json, example_packet
    from packets.models import Packet

    call_command("migrate", verbosity=0)
    user, _ = user_upsert(username="bench")
    Packet.objects.filter(owner=user).delete()
    body = canonical_json(example_packet())
    batch = [
        Packet(id=f"01BENCH{i:019d}", owner=user, ltm_version="0.2", created_at=f"2026-01-01T00:00:{i % 60:02d}Z",
               goal=f"bench goal {i}", next_step="next", body=body)
        for i in range(packet_count)
    ]
    Packet.objects.bulk_create(batch, batch_size=1000)
    _, token = api_token_create(actor=user, name="bench")
    return token, batch[0].id if batch else ""


def wait_until_up(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/healthz", timeout=1)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not come up")


def drive(port, requests_total, clients, make_request):
    """Send `requests_total` requests from `clients` threads; returns (seconds, latencies)."""
    latencies, lock = [], threading.Lock()
    per_client = requests_total // clients

    def client(index):
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        for n in range(per_client):
            method, path, body, headers = make_request(index, n)
            started = time.perf_counter()
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append(time.perf_counter() - started)
            if response.status >= 300:
                raise SystemExit(f"{method} {path} answered {response.status}")
        conn.close()
        with lock:
            latencies.extend(mine)

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    return time.perf_counter() - started, latencies


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packets", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=2_000, help="per endpoint")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=3, help="gunicorn workers")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="ltm-bench-")
    # What a deployment runs (gunicorn's hub.wsgi reads the same variables): production settings.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.production")
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_COOKIES", "0")  # plain http on loopback: no https redirect
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{scratch}/bench.sqlite3")
    token, pull_id = setup_database(args.packets)
    database = os.environ["DATABASE_URL"].split("://")[0]

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "hub.wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(args.workers), "--log-level", "warning"],
        cwd=ROOT,
    )
    try:
        wait_until_up(port)
        auth = {"Authorization": f"Bearer {token}"}
        from ltm.protocol.packet import example_packet

        template = example_packet()

        def push(index, n):
            packet = dict(template, id=f"01BENCHPUSH{index:03d}{n:012d}")
            return "POST", "/v1/packets", json.dumps(packet), {**auth, "Content-Type": "application/json"}

        endpoints = {
            "healthz": lambda i, n: ("GET", "/v1/healthz", None, {}),
            "push": push,
            "list": lambda i, n: ("GET", "/v1/packets?limit=50", None, auth),
            "pull": lambda i, n: ("GET", f"/v1/packets/{pull_id}", None, auth),
        }
        print(f"ltm hub bench: {database}, {args.packets} packets seeded, {args.requests} requests per endpoint, "
              f"{args.clients} clients, {args.workers} gunicorn workers")
        print(f"{'endpoint':<10}{'req/s':>10}{'p50 ms':>10}{'p95 ms':>10}{'p99 ms':>10}{'vs healthz':>12}")
        baseline = None
        for name, make_request in endpoints.items():
            drive(port, args.clients * 10, args.clients, make_request)  # warm up connections and caches
            seconds, latencies = drive(port, args.requests, args.clients, make_request)
            rate = len(latencies) / seconds
            baseline = baseline or rate
            print(f"{name:<10}{rate:>10.0f}{percentile(latencies, .5) * 1000:>10.1f}"
                  f"{percentile(latencies, .95) * 1000:>10.1f}{percentile(latencies, .99) * 1000:>10.1f}"
                  f"{rate / baseline:>12.2f}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
