"""A soak of the production stack: minutes of steady traffic at half its capacity.

Starts the stack as `make stack` does (the Procfile under honcho: release, web, worker, beat;
production settings, loopback, a fresh PostgreSQL database, the machine's Redis), measures its
capacity with a short burst of the traffic mix (healthz, push, list, pull) from closed-loop
clients, then sends that mix at half the capacity (or --rate) for --minutes. Prints each
minute's figures and at the end: requests, errors, latency percentiles per endpoint, and the
resident memory of the web server's worker processes at the start and at the end. Exits 1 when a
request failed (a wrong status or no answer) or when the restore drill, halfway through (a backup
of the stack under load restored into an empty database, checks/stack_ops.py), fails; latency
alone never fails it.

    python checks/soak.py --minutes 1                  # CI (.ci/run)
    python checks/soak.py --minutes 10                 # the figures in bench/README.md
"""

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

from stack import DEFAULT_REDIS_URL, Stack
from stack_ops import restore_drill

# The traffic mix: (endpoint, weight, expected status)
MIX = [("healthz", 15, 200), ("push", 20, 201), ("list", 30, 200), ("pull", 35, 200)]


def percentile(values: list[float], fraction: float) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[round(fraction * 1000) - 1]


class Traffic:
    """Builds the requests of the mix and records every answer."""

    def __init__(self, token: str, pull_ids: list[str]):
        from ltm.protocol.packet import example_packet

        self.template = example_packet()
        self.auth = {"Authorization": f"Bearer {token}"}
        self.pull_ids = pull_ids
        self.lock = threading.Lock()
        self.results: list[tuple[float, str, float]] = []  # (when, endpoint, seconds)
        self.errors: dict[str, int] = {}
        self.pushed = 0

    def request(self, endpoint: str):
        if endpoint == "healthz":
            return "GET", "/v1/healthz", None, {}
        if endpoint == "list":
            return "GET", "/v1/packets?limit=50", None, self.auth
        if endpoint == "pull":
            return "GET", f"/v1/packets/{random.choice(self.pull_ids)}", None, self.auth
        from ulid import ULID

        body = json.dumps({**self.template, "id": str(ULID())})
        return "POST", "/v1/packets", body, {**self.auth, "Content-Type": "application/json"}

    def send(self, conn: HTTPConnection, endpoint: str, expected: int) -> HTTPConnection:
        """One request; returns the connection to use next (a new one after a failure)."""
        method, path, body, headers = self.request(endpoint)
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            problem = None if response.status == expected else f"{endpoint}: {response.status}"
        except OSError as error:
            problem = f"{endpoint}: {type(error).__name__}"
            conn.close()
            conn = HTTPConnection(conn.host, conn.port, timeout=conn.timeout)
        took = time.perf_counter() - started
        with self.lock:
            self.results.append((time.monotonic(), endpoint, took))
            if problem:
                self.errors[problem] = self.errors.get(problem, 0) + 1
        return conn


def pick_endpoint():
    endpoint, _, expected = random.choices(MIX, weights=[weight for _, weight, _ in MIX])[0]
    return endpoint, expected


def burst(traffic: Traffic, port: int, clients: int, seconds: float) -> float:
    """Closed loop: `clients` threads send as fast as answers come. Returns requests per second."""
    stop_at = time.monotonic() + seconds
    counts = [0] * clients

    def client(index):
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop_at:
            conn = traffic.send(conn, *pick_endpoint())
            counts[index] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.monotonic() - started)


def steady(traffic: Traffic, port: int, clients: int, rate: float, seconds: float, report) -> int:
    """Open loop: `clients` threads share a schedule of `rate` requests per second for `seconds`;
    a thread that falls behind sends at once (counted as late). Returns the number of late sends."""
    began = time.monotonic()
    total = int(rate * seconds)
    late = [0] * clients

    def client(index):
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        for n in range(index, total, clients):
            due = began + n / rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            elif wait < -1:
                late[index] += 1
            conn = traffic.send(conn, *pick_endpoint())
        conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    minute = 1
    while any(thread.is_alive() for thread in threads):
        time.sleep(1)
        if time.monotonic() - began >= 60 * minute:
            report(f"minute {minute}", began + 60 * (minute - 1))
            minute += 1
    return sum(late)


def worker_memory(stack: Stack) -> dict[int, int]:
    """RSS in KiB of each web worker: the `python web.py` processes whose parent is one too (the
    server's main process forks its workers; honcho's shell above it names web.py too, but is a
    shell)."""

    def is_server(pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return Path(argv[0].decode()).name not in ("sh", "dash", "bash") and b"web.py" in argv

    memory = {}
    for pid in stack.processes("web"):
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if is_server(pid) and is_server(parent):
                memory[pid] = int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return memory


def describe_memory(memory: dict[int, int]) -> str:
    each = ", ".join(f"{kib / 1024:.1f}" for _, kib in sorted(memory.items()))
    return f"{sum(memory.values()) / 1024:.1f} MiB in {len(memory)} workers ({each})"


def summary(traffic: Traffic, since: float, label: str) -> str:
    with traffic.lock:
        rows = [(endpoint, took) for when, endpoint, took in traffic.results if when >= since]
    if not rows:
        return f"{label}: no requests"
    times = [took for _, took in rows]
    return f"{label}: {len(rows)} requests, p50 {percentile(times, 0.5) * 1000:.1f} ms, p99 {percentile(times, 0.99) * 1000:.1f} ms"


def mid_soak_drill(stack: Stack, after: float, outcome: dict) -> None:
    """Halfway through the soak: a backup of the stack under load, restored and checked."""
    time.sleep(after)
    try:
        outcome["note"] = restore_drill(stack)
    except Exception as error:  # reported at the end; the soak then fails
        outcome["error"] = f"{type(error).__name__}: {error}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--rate", type=float, help="requests per second (default: half the measured capacity)")
    parser.add_argument("--burst-seconds", type=float, default=10, help="the capacity measurement")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--workers", type=int, help="web workers (WEB_CONCURRENCY; unset: web.py's default, one per CPU)"
    )
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/ltm_stack_soak",
        help="dropped and created again; its name must start with ltm_stack",
    )
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    args = parser.parse_args()
    if not 0 < args.minutes <= 60:
        parser.error("--minutes: more than 0, at most 60")

    stack = Stack(
        database_url=args.database_url,
        redis_url=args.redis_url,
        web_concurrency=args.workers,
        log_dir=Path(tempfile.mkdtemp(prefix="ltm-soak-")),
    )
    try:
        stack.create_database()
        stack.release()
        for process in ("web", "worker", "beat"):
            stack.start(process)
        stack.wait_for_web()
        stack.manage("ltm_user", "soak")
        token = stack.manage("ltm_token", "soak", "--name", "soak")
        port = stack.port

        seeding = Traffic(token, [])
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        pull_ids = []
        for _ in range(50):
            method, path, body, headers = seeding.request("push")
            conn.request(method, path, body=body, headers=headers)
            conn.getresponse().read()
            pull_ids.append(json.loads(body)["id"])
        conn.close()

        traffic = Traffic(token, pull_ids)
        workers = f"{args.workers} web workers" if args.workers else "a web worker per CPU"
        print(
            f"ltm hub soak: the Procfile's stack, {workers}, {args.clients} clients, "
            f"mix {', '.join(f'{name} {weight}%' for name, weight, _ in MIX)}; logs in {stack.log_dir}",
            flush=True,
        )
        memory_start = worker_memory(stack)
        capacity = burst(traffic, port, args.clients, args.burst_seconds)
        rate = args.rate or capacity / 2
        print(
            f"capacity: {capacity:.0f} req/s over {args.burst_seconds:.0f}s; soak rate {rate:.0f} req/s "
            f"for {args.minutes:g} min",
            flush=True,
        )
        print(f"memory at the start: {describe_memory(memory_start)}", flush=True)
        errors_before = sum(traffic.errors.values())
        began = time.monotonic()

        def report(label, since):
            print(
                f"{summary(traffic, since, label)}, errors so far {sum(traffic.errors.values())}, "
                f"workers {describe_memory(worker_memory(stack))}",
                flush=True,
            )

        drill = threading.Thread(target=mid_soak_drill, args=(stack, args.minutes * 30, drilled := {}))
        drill.start()
        late = steady(traffic, port, args.clients, rate, args.minutes * 60, report)
        drill.join()
        print(f"restore drill mid-soak: {drilled.get('note') or 'FAILED: ' + drilled.get('error', '?')}", flush=True)
        memory_end = worker_memory(stack)
        print(summary(traffic, began, "soak"))
        for endpoint, _, _ in MIX:
            times = [took for when, name, took in traffic.results if when >= began and name == endpoint]
            if times:
                print(
                    f"  {endpoint:<8} {len(times):>7} requests  p50 {percentile(times, 0.5) * 1000:7.1f} ms"
                    f"  p99 {percentile(times, 0.99) * 1000:7.1f} ms"
                )
        print(f"late sends (over 1 s behind the schedule): {late}")
        print(f"memory at the end:   {describe_memory(memory_end)}")
        print(
            f"errors: {sum(traffic.errors.values())} ({errors_before} in the capacity burst)"
            + "".join(f"\n  {problem}: {count}" for problem, count in sorted(traffic.errors.items()))
        )
        return 1 if traffic.errors or "error" in drilled else 0
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
