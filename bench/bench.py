"""Benchmark of the packets wire API: a live hub driven by wrk.

Starts the hub as production runs it (`python web.py`: granian, one thread per worker, its access
log on, the production settings; --server runs it under gunicorn instead, to compare) against
the database of DATABASE_URL (default: a throw-away SQLite file; a PostgreSQL database is created
if missing), and drives it from loopback with wrk (32 connections by default), for a fixed time
per call:

    healthz    GET /v1/healthz
    list       GET /v1/packets?limit=50, with 100 and with 100,000 packets seeded for the user
    pull       GET /v1/packets/<id> of a seeded packet
    push       POST /v1/packets, a 3 KB packet with a fresh id on every request
    search     GET /v1/search?q=..., cycling through SEARCH_QUERIES, as a second user with 100,000
               varied packets (made from the search corpus, packets/tests/search/search_corpus.jsonl);
               once with all the connections, once with one (the latency of a search on a server
               that is not saturated)

Beside the hub it starts the floor (bench/floor.py): a bare WSGI callable answering a constant
small JSON, under gunicorn's sync workers, as many as the hub's. Each call is measured right after
a floor run (--repeat times), and the table gives: requests per second, p50/p99 latency (wrk's),
throughput and p99 as ratios to that floor run (the machine is shared and noisy: compare ratios
taken inside one run; with --repeat, the median and the range), CPU per call (the floor's too),
SQL round trips per call (bench/roundtrips.py), each call's CPU in this process with no server and
no other load and its ratio to healthz's (bench/in_process.py), and the list's 100,000÷100 ratio
(each side's ratio to the floor). Then each call once more with one client, beside the floor
with one client (bench/one_client.py; --no-one-client leaves it out): p50, p99 and max, the
latency of a call on a server that is not saturated, and its outliers.
CPU per call is the CPU time (user + system, /proc/<pid>/stat) that the server's main process
and workers and the PostgreSQL backends connected to the
bench's database spent during the run, divided by the requests wrk completed; PostgreSQL's shared
background processes (WAL writer, checkpointer) are not counted, and wrk itself is not. The
workers keep their database connections for the whole bench (DB_CONN_MAX_AGE), so no backend
ends mid-run and takes the CPU it spent out of the count.

    make bench                                   # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/ltm_bench make bench
    python bench/bench.py --duration 5 --json after.json --compare before.json
    python bench/bench.py --duration 5 --repeat 3 --no-search    # ranges, without the search rows
    python bench/bench.py --workers 1 --no-search                # the $5 VPS profile's web process
    python bench/bench.py --server gthread --web-threads 4       # the hub under gunicorn's threads
    python bench/bench.py --calls push pull --repeat 3           # some of the calls only
    python bench/bench.py --calls push --without-search-index    # what a push costs beside its search index

--without-search-index measures in a database made for the run (PostgreSQL: the bench database's
name + "_without_search_index"; SQLite: a throw-away file), whose packets are never indexed for
search (no stored vector on PostgreSQL, no search triggers on SQLite): the share of each call that
no way of indexing for search could give back. It leaves out the search rows.

It re-seeds the packets of the users `bench` and `bench-search` in that database (bench/seeding.py):
never point it at production. The wrk runs are bench/wrk_runs.py, the tables bench/report.py.
"""

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

from live_hub import gunicorn, hub
from one_client import measure_one_client
from report import print_report
from seeding import (  # noqa: F401 - database_without_search_index and drop_search_index: tests/test_bench_without_search_index.py
    RELATED_IDS,
    SEARCH_QUERIES,
    create_database_if_missing,
    database_without_search_index,
    drop_search_index,
    packet_count,
    packet_template,
    seed,
    seed_search,
    semantic_on,
    setup_database,
)
from wrk_runs import measure, median_run, run_wrk, serving_processes

HERE = Path(__file__).resolve().parent
CALLS = ["healthz", "list", "pull", "push", "search"]


def main():
    from web import cpus

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=int, default=10, help="seconds of load per call (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of untimed load before each (default 2)")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument(
        "--workers",
        type=int,
        default=cpus(),
        help="web workers of the hub, and of the floor (default: web.py's, one per CPU)",
    )
    parser.add_argument("--web-threads", type=int, default=1, help="threads per hub worker (WEB_THREADS)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="(floor, call) pairs per call: the table gives their median and range"
    )
    parser.add_argument("--no-search", action="store_true", help="leave out the two search rows (and their seeding)")
    parser.add_argument(
        "--no-one-client",
        action="store_true",
        help="leave out the pass with one client (bench/one_client.py): p50, p99 and max of each call and of the floor",
    )
    parser.add_argument(
        "--calls",
        nargs="+",
        choices=CALLS,
        default=CALLS,
        help="the calls to measure (default: all of them); list measures both seed sizes",
    )
    parser.add_argument(
        "--without-search-index",
        action="store_true",
        help="measure in a database of its own whose packets are not indexed for search (no search rows)",
    )
    parser.add_argument(
        "--packets",
        type=int,
        nargs=2,
        default=[100, 100_000],
        metavar=("FEW", "MANY"),
        help="packets seeded for the two list runs (default 100 100000)",
    )
    parser.add_argument(
        "--server",
        choices=["granian", "sync", "gthread"],
        default="granian",
        help="granian: as production runs the hub (web.py, the default); sync, gthread: under gunicorn's "
        "sync or threaded workers, with no access log, to compare",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results to FILE")
    parser.add_argument("--compare", metavar="FILE", help="a --json file of an earlier run: print its ratios beside")
    args = parser.parse_args()
    if args.packets[0] == args.packets[1]:
        parser.error("--packets needs two different sizes")
    if not shutil.which("wrk"):
        raise SystemExit("bench needs wrk on PATH (Debian/Ubuntu: apt-get install wrk)")

    scratch = tempfile.mkdtemp(prefix="ltm-bench-")
    atexit.register(shutil.rmtree, scratch, ignore_errors=True)  # on an early exit too
    # What a deployment runs (hub.wsgi reads the same variables): production settings.
    os.environ["DJANGO_SETTINGS_MODULE"] = "hub.settings.production"
    os.environ.setdefault("SECRET_KEY", "bench-only")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1")
    os.environ.setdefault("SECURE_COOKIES", "0")  # plain http on loopback: no https redirect
    # A connection older than DB_CONN_MAX_AGE (60 s) is replaced after a request: its backend's
    # CPU would be lost to the count (a new connection per worker a minute costs nothing visible).
    os.environ.setdefault("DB_CONN_MAX_AGE", "3600")
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{scratch}/bench.sqlite3")
    os.environ.pop("DEBUG", None)
    if args.without_search_index:
        os.environ["DATABASE_URL"] = database_without_search_index(os.environ["DATABASE_URL"], scratch)
    create_database_if_missing(os.environ["DATABASE_URL"])
    token = setup_database()
    if args.without_search_index:
        drop_search_index()
    measured = set(args.calls) - ({"search"} if args.no_search or args.without_search_index else set())
    from django.db import connection

    database = connection.settings_dict["NAME"] if connection.vendor == "postgresql" else None
    body_file = Path(scratch) / "packet.json"
    body_file.write_text(packet_template())
    search_paths = Path(scratch) / "search-paths.txt"
    search_paths.write_text("".join(f"/v1/search?{urlencode({'q': q})}\n" for q in SEARCH_QUERIES))

    few, many = args.packets
    seed(few)
    rows = {}
    # The hub as production starts it (web.py: its access log goes to a file here), and
    # the floor (bench/floor.py) beside it with as many workers.
    hub_log = open(Path(scratch) / "hub.log", "ab")
    floor_log = Path(scratch) / "floor.log"
    with (
        serve_hub(args, stdout=hub_log, stderr=hub_log) as (server, port),
        gunicorn(
            "--log-level",
            "warning",
            workers=args.workers,
            app="floor:application",
            health="/",
            cwd=HERE,
            stdout=open(floor_log, "ab"),
            stderr=subprocess.STDOUT,
            log=floor_log,
        ) as (floor_server, floor_port),
    ):
        # Fresh workers keep getting faster over their first requests: without this,
        # whichever call came first would look slower than it is.
        run_wrk(port, "/v1/packets?limit=50", args, token=token, seconds=3 * args.warmup)

        def processes():
            return serving_processes(server.pid, database)

        def run(name, path, **options):
            # The machine is shared and its load drifts: each call is compared with a floor run
            # made just before it.
            print(f"  floor, then {name} ...", file=sys.stderr, flush=True)
            runs = []
            for _ in range(args.repeat):
                floor = measure(floor_port, "/", args, lambda: serving_processes(floor_server.pid, None))
                result = measure(port, path, args, processes, **{"token": token, **options})
                result["floor"] = {key: floor[key] for key in ("rate", "p50_ms", "p99_ms", "cpu_ms")}
                result["vs_floor"] = result["rate"] / floor["rate"]
                result["p99_vs_floor"] = result["p99_ms"] / floor["p99_ms"]
                runs.append(result)
            rows[name] = dict(median_run(runs), runs=runs)
            if not args.no_one_client and options.get("connections") != 1:
                print(f"  floor, then {name}, with one client ...", file=sys.stderr, flush=True)
                one = measure_one_client(port, floor_port, path, args, **{"token": token, **options})
                rows[name]["one_client"] = one

        if "healthz" in measured:
            run("healthz", "/v1/healthz")
        if "list" in measured:
            run(f"list, {few:,} packets", "/v1/packets?limit=50")
        started = time.monotonic()
        pull_id = seed(many)
        print(f"  seeded {many:,} packets in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
        if "list" in measured:
            run(f"list, {many:,} packets", "/v1/packets?limit=50")
        if "pull" in measured:
            run("pull", f"/v1/packets/{pull_id}")
        if "push" in measured:
            run("push (new id)", "/v1/packets", mode="push", body_file=str(body_file))
            created = packet_count() - many
            pushed = sum(run["requests"] for run in rows["push (new id)"]["runs"])
            if created < pushed:
                raise SystemExit(f"push: wrk counted {pushed} requests but only {created} packets were created")
        search_token = None
        if "search" in measured:
            started = time.monotonic()
            search_token = seed_search(many)
            print(
                f"  seeded {many:,} varied packets for search in {time.monotonic() - started:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            search = {"mode": "cycle", "body_file": str(search_paths), "token": search_token}
            run(f"search, {many:,} packets", "/v1/search", **search)
            # One search at a time: what a search costs a person when the server is not saturated
            # (with 32 connections on 2 cores, every call's p99 is mostly queueing).
            run("search, 1 connection", "/v1/search", connections=1, **search)  # hybrid: the default mode
            if semantic_on():
                # Recall by meaning: each other mode, and `related` of packets across the corpus.
                for mode in ("keyword", "semantic"):
                    paths = Path(scratch) / f"search-{mode}-paths.txt"
                    paths.write_text(
                        "".join(f"/v1/search?{urlencode({'q': q, 'mode': mode})}\n" for q in SEARCH_QUERIES)
                    )
                    run(
                        f"search {mode}, 1 connection",
                        "/v1/search",
                        connections=1,
                        **{**search, "body_file": str(paths)},
                    )
                paths = Path(scratch) / "related-paths.txt"
                paths.write_text("".join(f"/v1/packets/{pid}/related\n" for pid in RELATED_IDS))
                run(
                    "related, 1 connection",
                    "/v1/packets/x/related",
                    connections=1,
                    **{**search, "body_file": str(paths)},
                )
    floor_runs = [run["floor"] for row in rows.values() for run in row["runs"]]
    rows = {"floor": dict(sorted(floor_runs, key=lambda r: r["rate"])[len(floor_runs) // 2]), **rows}

    import in_process
    import roundtrips

    auth = {"Authorization": f"Bearer {token}"}
    pushed = iter(range(10**6))
    packet = body_file.read_text()
    calls = {
        "healthz": lambda: ("GET", "/v1/healthz", None, {}),
        "list": lambda: ("GET", "/v1/packets?limit=50", None, auth),
        "pull": lambda: ("GET", f"/v1/packets/{pull_id}", None, auth),
        "push": lambda: (
            "POST",
            "/v1/packets",
            packet.replace("__ID__", f"01BENCHTRIPS{next(pushed):014d}"),
            auth,
        ),
    }
    if search_token:
        calls["search"] = lambda: (
            "GET",
            f"/v1/search?{urlencode({'q': SEARCH_QUERIES[0]})}",
            None,
            {"Authorization": f"Bearer {search_token}"},
        )
        if semantic_on():
            calls["related"] = lambda: (
                "GET",
                f"/v1/packets/{RELATED_IDS[0]}/related",
                None,
                {"Authorization": f"Bearer {search_token}"},
            )
    # healthz always: each call's in-process figure is also given as a ratio to healthz's.
    calls = {name: call for name, call in calls.items() if name in measured | {"healthz", "related"}}
    trips = roundtrips.count_round_trips(calls)
    print("  each call in this process ...", file=sys.stderr, flush=True)
    costs = in_process.cpu_per_call(calls)
    for name, row in rows.items():
        if name != "floor":
            call = name.split()[0].rstrip(",")
            row["round_trips"] = trips[call]
            row["in_process_us"] = costs[call]["us"]
            row["in_process_backend_us"] = costs[call]["backend_us"]
            row["in_process_vs_healthz"] = costs[call]["us"] / costs["healthz"]["us"]
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": connection.vendor,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
        "options": {k: v for k, v in vars(args).items() if k not in ("json", "compare")},
        "calls": rows,
    }
    if "list" in measured:
        # Each side against its own floor run: the seeding between them takes a while.
        lists = rows[f"list, {many:,} packets"]["vs_floor"], rows[f"list, {few:,} packets"]["vs_floor"]
        report["list_many_vs_few"] = lists[0] / lists[1]
    earlier = json.loads(Path(args.compare).read_text()) if args.compare else None
    print_report(report, earlier)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


def serve_hub(args, **popen):
    """The hub under the server --server names, with --workers workers of --web-threads threads."""
    if args.server == "granian":
        return hub(workers=args.workers, env={"WEB_THREADS": str(args.web_threads)}, **popen)
    threads = ["--threads", str(args.web_threads)] if args.server == "gthread" else []
    return gunicorn("--log-level", "warning", *threads, workers=args.workers, **popen)


if __name__ == "__main__":
    main()
