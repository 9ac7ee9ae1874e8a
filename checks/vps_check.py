"""The $5 VPS profile (docs/production.md): the whole stack on SQLite, without Redis, started as
the Procfile starts it, must stay under 150 MiB of proportional set size after 20,000 requests.

Starts the Procfile's `release` and `web` lines under honcho (production settings, plain http on
loopback) with the profile's variables (PROFILES below): one web worker whose threads answer
every request, and whose mail goes out from the same process (no Redis: Celery tasks run in
it). There is no worker or beat to start: they need Redis. Then `--requests` requests from
`--clients` closed-loop clients, the soak's mix (healthz, push, list, pull), the sign-in page (a
page for people, with its session and CSRF cookie), a search and a packet's related packets (the
profile says whether recall by meaning is on). Prints the throughput, the errors and the
proportional set size (PSS, /proc/<pid>/smaps_rollup: each shared page counted once in all) of
every process of the stack, and exits 1 on an error or when the sum is over `--limit-mib`.

    python checks/vps_check.py                     # CI (.ci/run): the $5 VPS profile
    python checks/vps_check.py --profile default   # what the default profile costs, for comparison
    python checks/vps_check.py --threads 1         # the profile with another WEB_THREADS
    python checks/vps_check.py --python .venv-vps/bin/python   # as `make vps-check` runs it
"""

import argparse
import json
import random
import sys
import tempfile
import threading
import time
from http.client import HTTPConnection
from pathlib import Path

from soak import MIX, Traffic
from stack import Stack

# The variables of each profile; the rest comes from the production settings' defaults.
PROFILES = {
    # 1 vCPU, 512 MB: one worker process, one copy of the application. Two threads, not one:
    # they hold about the memory of one and one thread answers somewhat more requests a second
    # (bench/README.md has both measured), but with one thread a single slow request (a large
    # export, mail sent in the request without Redis) makes every other request wait for it;
    # with two the hub keeps answering.
    # Recall by meaning off: its model and vectors would take the process over the 512 MB
    # machine's share (bench/README.md has the figures); search is then by words alone.
    "vps": {"WEB_CONCURRENCY": "1", "WEB_THREADS": "2", "MALLOC_ARENA_MAX": "2", "LTM_SEMANTIC": "off"},
    # web.py's defaults (one thread per worker), with the two workers Stack() starts by default.
    "default": {},
}
PAGE = ("page", 10, 200)  # the sign-in page, beside the soak's mix
# A search by words and meaning (hybrid, the default), and the packets related to one: with recall
# by meaning on (LTM_SEMANTIC), the process loads its model and keeps its vectors.
SEARCH = ("search", 5, 200)
# With LTM_SEMANTIC=off, `related` is refused (400), as the setting says.
RELATED = ("related", 2, 200)
RELATED_OFF = ("related", 2, 400)


class MixedTraffic(Traffic):
    def request(self, endpoint):
        if endpoint == "page":
            return "GET", "/accounts/login/", None, {}
        if endpoint == "search":
            return "GET", "/v1/search?q=tests+hang+when+the+suite+runs+in+parallel", None, self.auth
        if endpoint == "related":
            return "GET", f"/v1/packets/{random.choice(self.pull_ids)}/related", None, self.auth
        return super().request(endpoint)


def send_all(traffic: Traffic, port: int, clients: int, total: int, *, semantic: bool) -> float:
    """`total` requests from `clients` closed-loop threads; returns the seconds they took."""
    mix = [*MIX, PAGE, SEARCH, RELATED if semantic else RELATED_OFF]
    weights = [weight for _, weight, _ in mix]
    remaining = iter(range(total))
    lock = threading.Lock()

    def client():
        conn = HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                if next(remaining, None) is None:
                    break
            endpoint, _, expected = random.choices(mix, weights=weights)[0]
            conn = traffic.send(conn, endpoint, expected)
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def proportional_sizes(stack: Stack) -> dict[int, tuple[str, int]]:
    """(command, PSS in KiB) of each process of the web stack. honcho and its `sh -c` around the
    Procfile line, which a deployment does not have (systemd or compose start the line), are
    left out."""
    sizes = {}
    for pid in stack.processes("web"):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        if Path(argv[0]).name in ("sh", "dash", "bash") or "honcho" in argv:
            continue
        pss = next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
        sizes[pid] = (" ".join(argv).strip()[:70], pss)
    return sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", choices=sorted(PROFILES), default="vps")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--limit-mib", type=float, default=150, help="the most the stack may hold (vps profile)")
    parser.add_argument("--threads", type=int, help="WEB_THREADS instead of the profile's: to compare")
    parser.add_argument(
        "--python", type=Path, help="the interpreter the stack runs with (a virtualenv of requirements.txt alone)"
    )
    args = parser.parse_args()
    profile = {**PROFILES[args.profile], **({"WEB_THREADS": str(args.threads)} if args.threads else {})}

    scratch = Path(tempfile.mkdtemp(prefix="ltm-vps-"))
    stack = Stack(
        database_url=f"sqlite:///{scratch}/ltm_stack_vps.sqlite3",
        redis_url=None,
        web_concurrency=int(profile.get("WEB_CONCURRENCY", "2")),
        log_dir=scratch,
        env=profile,
        python=args.python,
    )
    try:
        stack.create_database()
        stack.release()
        stack.start("web")
        stack.wait_for_web()
        stack.manage("ltm_user", "vps")
        token = stack.manage("ltm_token", "vps", "--name", "vps")
        seeding = MixedTraffic(token, [])
        conn = HTTPConnection("127.0.0.1", stack.port, timeout=30)
        for _ in range(20):
            conn = seeding.send(conn, "push", 201)
        conn.close()
        pull_ids = [row["id"] for row in _listed(stack.port, token)]
        traffic = MixedTraffic(token, pull_ids)
        print(
            f"ltm hub, the {args.profile} profile ({profile or 'no variables'}), SQLite, no Redis: "
            f"{args.requests:,} requests from {args.clients} clients; logs in {scratch}",
            flush=True,
        )
        seconds = send_all(
            traffic, stack.port, args.clients, args.requests, semantic=profile.get("LTM_SEMANTIC", "on") != "off"
        )
        sizes = proportional_sizes(stack)
        total_mib = sum(pss for _, pss in sizes.values()) / 1024
        errors = sum(traffic.errors.values())
        print(f"{len(traffic.results):,} requests in {seconds:.1f} s: {len(traffic.results) / seconds:.0f} req/s")
        for pid, (command, pss) in sorted(sizes.items()):
            print(f"  {pid:>7}  {pss / 1024:6.1f} MiB  {command}")
        print(f"proportional set size of the stack: {total_mib:.1f} MiB in {len(sizes)} processes")
        print(f"errors: {errors}" + "".join(f"\n  {what}: {count}" for what, count in sorted(traffic.errors.items())))
        over = args.profile == "vps" and total_mib > args.limit_mib
        if over:
            print(f"FAIL: over {args.limit_mib:g} MiB")
        return 1 if errors or over or not sizes else 0
    finally:
        stack.stop()


def _listed(port: int, token: str) -> list[dict]:
    conn = HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/v1/packets?limit=50", headers={"Authorization": f"Bearer {token}"})
    listed = json.loads(conn.getresponse().read())["packets"]
    conn.close()
    return listed


if __name__ == "__main__":
    sys.exit(main())
