"""Measure GET /v1/export once: time and the web process's memory for a large export.

Seeds PACKETS (default 100,000) 3 KB packets for the user `bench` in the database of DATABASE_URL
(created if missing; default a throw-away SQLite file), in threads of 4 (each packet continues the
one before, so the markdown's thread order has work to do), starts the hub as production runs it
(web.py: granian, one worker, production settings), downloads the export in each format and prints,
per format: seconds, bytes, packets, and the worker's peak resident memory above what it held
before the export (sampled from /proc every 20 ms).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ltm_bench python bench/export.py
    python bench/export.py --packets 20000

It re-seeds the packets of the user `bench`: never point it at production.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_hub import hub  # noqa: E402

from bench import create_database_if_missing, packet_template, setup_database  # noqa: E402

THREAD_LENGTH = 4


def seed_threads(count: int) -> None:
    """Replace the bench user's packets with `count` packets a second apart, in threads."""
    from django.db import connection

    from accounts.models import User
    from packets.models import Packet

    user = User.objects.get(username="bench")
    Packet.objects.filter(owner=user).delete()
    start, body = datetime(2026, 1, 1, tzinfo=UTC), packet_template()
    for first in range(0, count, 5000):
        Packet.objects.bulk_create(
            Packet(
                id=f"01BENCH{i:019d}",
                owner=user,
                ltm_version="0.2",
                created_at=start + timedelta(seconds=i),
                goal=f"bench goal {i}",
                next_step="next",
                body=body.replace("__ID__", f"01BENCH{i:019d}"),
                parent_id=f"01BENCH{i - 1:019d}" if i % THREAD_LENGTH else "",
            )
            for i in range(first, min(count, first + 5000))
        )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            # The seeding's own session only: the hub under measurement keeps its statement timeout.
            cursor.execute("SET statement_timeout = 0")
            connection.connection.answer_timeout = None  # nor does the hub stop waiting (hub.backends.postgresql)
            cursor.execute(f"VACUUM ANALYZE {Packet._meta.db_table}")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def worker_pid(main: int) -> int:
    """The server's only worker: the child of its main process."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        children = Path(f"/proc/{main}/task/{main}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise SystemExit("the server started no worker")


def download(port: int, token: str, format: str, worker: int) -> dict:
    """Fetch the export, sampling the worker's memory meanwhile."""
    peak, done = [rss_kib(worker)], threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib(worker))
            time.sleep(0.02)

    before = rss_kib(worker)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/export?format={format}", headers={"Authorization": f"Bearer {token}"}
    )
    started = time.monotonic()
    size = lines = 0
    with urllib.request.urlopen(request, timeout=600) as reply:
        count = int(reply.headers["X-LTM-Export-Count"])
        while chunk := reply.read(1 << 16):
            size += len(chunk)
            lines += chunk.count(b"\n")
    seconds = time.monotonic() - started
    done.set()
    sampler.join()
    return {
        "format": format,
        "seconds": seconds,
        "bytes": size,
        "packets": count,
        "lines": lines,
        "rss_before_mib": before / 1024,
        "rss_growth_mib": (peak[0] - before) / 1024,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--packets", type=int, default=100_000, help="packets to seed (default 100000)")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="ltm-bench-export-")
    os.environ["DJANGO_SETTINGS_MODULE"] = "hub.settings.production"
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_COOKIES", "0")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{scratch}/bench.sqlite3")
    os.environ.pop("DEBUG", None)
    create_database_if_missing(os.environ["DATABASE_URL"])
    token = setup_database()
    started = time.monotonic()
    seed_threads(args.packets)
    print(f"seeded {args.packets:,} packets in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    from django.db import connection

    try:
        # The server has no time limit on a request: the export runs to its end.
        with hub(env={"WEB_ACCESS_LOG": "0"}, stdout=subprocess.DEVNULL) as (server, port):
            worker = worker_pid(server.pid)
            # Warm the worker (imports, the first connection) with a small export.
            urllib.request.urlopen(
                urllib.request.Request(
                    f"http://127.0.0.1:{port}/v1/packets?limit=1", headers={"Authorization": f"Bearer {token}"}
                )
            ).read()
            results = [download(port, token, format, worker) for format in ("jsonl", "markdown")]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"\nltm hub export, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {connection.vendor}, "
        f"{args.packets:,} packets in threads of {THREAD_LENGTH}, one web worker (granian)"
    )
    print(f"{'format':<10}{'seconds':>9}{'MiB':>9}{'packets/s':>11}{'worker RSS before':>19}{'peak growth':>13}")
    for row in results:
        print(
            f"{row['format']:<10}{row['seconds']:>9.1f}{row['bytes'] / 2**20:>9.1f}"
            f"{row['packets'] / row['seconds']:>11,.0f}{row['rss_before_mib']:>15.1f} MiB{row['rss_growth_mib']:>9.1f} MiB"
        )
        if row["format"] == "jsonl" and row["lines"] != row["packets"]:
            raise SystemExit(f"jsonl export had {row['lines']} lines for {row['packets']} packets")


if __name__ == "__main__":
    main()
