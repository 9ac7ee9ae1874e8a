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
               varied packets (made from the search corpus, packets/tests/search_corpus.jsonl);
               once with all the connections, once with one (the latency of a search on a server
               that is not saturated)

Beside the hub it starts the floor (bench/floor.py): a bare WSGI callable answering a constant
small JSON, under gunicorn's sync workers, as many as the hub's. Each call is measured right after
a floor run (--repeat times), and the table gives: requests per second, p50/p99 latency (wrk's),
throughput and p99 as ratios to that floor run (the machine is shared and noisy: compare ratios
taken inside one run; with --repeat, the median and the range), CPU per call (the floor's too),
SQL round trips per call (bench/roundtrips.py), each call's CPU in this process with no server and
no other load and its ratio to healthz's (bench/in_process.py), and the list's 100,000÷100 ratio
(each side's ratio to the floor).
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

It re-seeds the packets of the users `bench` and `bench-search` in that database: never point it
at production.
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from live_hub import gunicorn, hub

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HERE = Path(__file__).resolve().parent
CALLS = ["healthz", "list", "pull", "push", "search"]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _postgresql_admin(url: str):
    """A connection to the `postgres` database of the server `url` names, for creating and
    dropping databases; None when `url` is not PostgreSQL's."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        return None
    import psycopg

    return psycopg.connect(parts._replace(scheme="postgresql", path="/postgres").geturl(), autocommit=True)


def create_database_if_missing(url: str) -> None:
    if (admin := _postgresql_admin(url)) is None:
        return
    from psycopg import sql

    name = urlsplit(url).path.lstrip("/")
    with admin as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def setup_database() -> str:
    """Migrate and create the bench user and its token. Returns the token."""
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import api_token_create, user_upsert

    call_command("migrate", verbosity=0)
    user, _ = user_upsert(username="bench")
    _, token = api_token_create(actor=user, name="bench")
    return token


def database_without_search_index(url: str, scratch: str) -> str:
    """The URL of a database of its own for --without-search-index, dropped if it exists (the bench
    creates it), so that no later run of the bench meets a database whose search index is gone."""
    if (admin := _postgresql_admin(url)) is None:
        return f"sqlite:///{scratch}/bench-without-search-index.sqlite3"
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/") + "_without_search_index"
    with admin as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    return parts._replace(path=f"/{name}").geturl()


def drop_search_index() -> None:
    """Packets written from now on are not indexed for search: PostgreSQL loses the stored search
    vector (and its GIN index), SQLite the triggers that name a packet for its FTS5 index
    (packets/migrations/0005 and 0012). Search itself no longer works in this database."""
    from django.db import connection

    from packets.models import Packet

    table = connection.ops.quote_name(Packet._meta.db_table)
    if connection.vendor == "postgresql":
        statements = [f"ALTER TABLE {table} DROP COLUMN search_vector"]
    else:
        statements = ["DROP TRIGGER packets_search_insert", "DROP TRIGGER packets_search_update"]
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


def delete_packets(owner) -> None:
    """Every packet of `owner`. Rows that cascade from a packet make Django collect the packets
    first, one parameter each: in chunks, under PostgreSQL's limit of 65,535 parameters."""
    from packets.models import Packet

    while ids := list(Packet.objects.filter(owner=owner).values_list("id", flat=True)[:10_000]):
        Packet.objects.filter(id__in=ids).delete()


def seed(count: int) -> str:
    """Replace the bench user's packets with `count` 3 KB packets (bulk insert, not the API), a
    second apart. Returns the id of one in the middle."""
    from accounts.models import User
    from packets.models import Packet

    user = User.objects.get(username="bench")
    delete_packets(user)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    body = packet_template()
    for first in range(0, count, 5000):
        ids = [f"01BENCH{i:019d}" for i in range(first, min(count, first + 5000))]
        Packet.objects.bulk_create(
            Packet(
                id=pid,
                owner=user,
                ltm_version="0.2",
                created_at=start + timedelta(seconds=first + n),
                goal=f"bench goal {first + n}",
                next_step="next",
                body=body.replace("__ID__", pid),
            )
            for n, pid in enumerate(ids)
        )
    vacuum()
    return f"01BENCH{count // 2:019d}"


# Queries of the search row, from narrow (a few hundred matches in 100,000 packets) to broad
# (thousands): what a person types, a phrase, an exclusion and a pasted id prefix.
SEARCH_QUERIES = [
    "flaky test 107",
    "cache stampede",
    "deadlock invoice numbers",
    "memory leak thumbnail worker",
    '"connection pool exhausted"',
    "dark mode -android",
    "retried uploads",
    "kafka consumer lag",
    "slow queries postgresql",
    "flaky tests",
    "01SEARCH000000000000004",
    "token bucket redis",
]


def seed_search(count: int) -> str:
    """Give a second user, `bench-search`, `count` varied packets: each mixes the goal, next step,
    decisions, attempts and tags of different packets of the search corpus, so a word is in a few
    hundred to a few thousand packets, as in a real hub, not in all of them. Returns its token."""
    import random

    from accounts.services import api_token_create, user_upsert
    from ltm.protocol.packet import canonical_json
    from packets.models import Packet

    corpus = [json.loads(line) for line in (ROOT / "packets/tests/search_corpus.jsonl").read_text().splitlines()]
    user, _ = user_upsert(username="bench-search")
    delete_packets(user)
    rng = random.Random(14)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for first in range(0, count, 5000):
        rows = []
        for n in range(first, min(count, first + 5000)):
            goal, step, more, other = (rng.choice(corpus) for _ in range(4))
            packet = {
                "ltm_version": "0.2",
                "id": f"01SEARCH{n:018d}",
                "goal": goal["goal"],
                "next_step": step["next_step"],
                "created_at": (start + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "project": goal.get("project", {}),
                "tags": sorted(set(goal.get("tags", []) + other.get("tags", []))),
                "decisions": more.get("decisions", []) + other.get("decisions", []),
                "attempts": more.get("attempts", []) + other.get("attempts", []),
                "open_questions": other.get("open_questions", []),
            }
            rows.append(
                Packet(
                    id=packet["id"],
                    owner=user,
                    ltm_version="0.2",
                    created_at=start + timedelta(seconds=n),
                    goal=packet["goal"],
                    next_step=packet["next_step"],
                    project=packet["project"].get("name", ""),
                    tags=" " + " ".join(packet["tags"]) + " " if packet["tags"] else "",
                    body=canonical_json(packet),
                )
            )
        Packet.objects.bulk_create(rows)
    vacuum()
    return api_token_create(actor=user, name="bench")[1]


def vacuum() -> None:
    """Settle what the bulk inserts left for later writes, so the measured calls do not pay it."""
    from django.db import connection

    from packets.models import Packet

    if connection.vendor == "postgresql":
        # What autovacuum would reach by itself, done now rather than in the middle of a measurement.
        # After 100,000 rows were replaced it may take longer than the hub's statement timeout.
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
            connection.connection.answer_timeout = None  # nor does the hub stop waiting (core.postgresql)
            cursor.execute(f"VACUUM ANALYZE {Packet._meta.db_table}")
    else:
        # Index the seed's last packets still waiting for the search index (its batches:
        # packets/migrations/0012), then merge the FTS5 segments the seed left, which FTS5 would
        # otherwise merge a little at a time on later writes: right after the seed, the occasional
        # push that pays for a merge is many times slower than the others (a hub grown by pushes
        # merges as it goes; figures in bench/README.md).
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO packets_search_catch_up (now) VALUES (1)")
            cursor.execute("INSERT INTO packets_search (packets_search) VALUES ('optimize')")


def packet_count() -> int:
    from packets.models import Packet

    return Packet.objects.filter(owner__username="bench").count()


def packet_template() -> str:
    """The protocol's example packet (3 KB of canonical JSON) with "__ID__" for its id."""
    from ltm.protocol.packet import canonical_json, example_packet

    return canonical_json(dict(example_packet(), id="__ID__"))


def cpu_seconds(pids) -> dict[int, float]:
    """CPU time (user + system) of each process still alive, from /proc/<pid>/stat."""
    times = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        times[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return times


def serving_processes(server_pid: int, database: str | None) -> list[int]:
    """The server's main process and workers, and the PostgreSQL backends connected to `database`
    (their process title names it); the server's shared background processes are not counted."""
    pids = [server_pid]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").split()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if parent == server_pid or (database and title[:1] == ["postgres:"] and database in title):
            pids.append(int(entry.name))
    return pids


def run_wrk(port, path, args, mode="get", token="", body_file="", seconds=None, connections=None) -> dict:
    connections = connections or args.connections
    command = [
        "wrk",
        "--threads",
        str(min(args.threads, connections)),
        "--connections",
        str(connections),
        "--duration",
        f"{seconds or args.duration}s",
        "--timeout",
        "5s",
        "--script",
        str(HERE / "wrk.lua"),
        f"http://127.0.0.1:{port}{path}",
        "--",
        mode,
        token,
        body_file,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=(seconds or args.duration) + 60)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode or not lines:
        raise SystemExit(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    return json.loads(lines[-1])


def measure(port, path, args, processes=None, **wrk_options) -> dict:
    """One wrk run after a short warm-up, with the CPU the serving processes spent during it."""
    run_wrk(port, path, args, seconds=args.warmup, **wrk_options)
    pids = processes() if processes else []
    before = cpu_seconds(pids)
    result = run_wrk(port, path, args, **wrk_options)
    after = cpu_seconds(pids)
    if result["http_errors"]:
        raise SystemExit(f"{path}: {result['http_errors']} answers were HTTP errors (the server's log above)")
    spent = sum(after[pid] - before[pid] for pid in after if pid in before)
    result["processes"] = len(after)
    result["rate"] = result["requests"] / result["seconds"]
    result["cpu_ms"] = spent / max(result["requests"], 1) * 1000
    return result


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
            run("search, 1 connection", "/v1/search", connections=1, **search)
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
    # healthz always: each call's in-process figure is also given as a ratio to healthz's.
    calls = {name: call for name, call in calls.items() if name in measured | {"healthz"}}
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
    print_table(report, earlier)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


def serve_hub(args, **popen):
    """The hub under the server --server names, with --workers workers of --web-threads threads."""
    if args.server == "granian":
        return hub(workers=args.workers, env={"WEB_THREADS": str(args.web_threads)}, **popen)
    threads = ["--threads", str(args.web_threads)] if args.server == "gthread" else []
    return gunicorn("--log-level", "warning", *threads, workers=args.workers, **popen)


def median_run(runs: list[dict]) -> dict:
    """The run of the median ratio to the floor, with the range of all the runs' ratios."""
    middle = sorted(runs, key=lambda r: r["vs_floor"])[len(runs) // 2]
    ratios = [r["vs_floor"] for r in runs]
    p99s = [r["p99_vs_floor"] for r in runs]
    return {
        **{key: value for key, value in middle.items()},
        "vs_floor_range": [min(ratios), max(ratios)],
        "p99_vs_floor_range": [min(p99s), max(p99s)],
    }


def print_table(report, earlier=None) -> None:
    options = report["options"]
    repeat = options.get("repeat", 1)
    print(
        f"\nltm hub bench, {report['date']}: {report['database']}, {report['cpus']} CPUs, load average "
        f"{report['load_average'][0]:.1f}, {options['workers']} web workers of {options.get('web_threads', 1)} "
        f"thread(s) under {options.get('server', 'gunicorn sync')} (the floor: as many gunicorn sync "
        f"workers), wrk {options['connections']} connections, {options['duration']} s per call, {repeat} run(s) each"
        + (", packets not indexed for search (--without-search-index)" if options.get("without_search_index") else "")
    )
    header = (
        f"{'call':<24}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'÷ floor':>19}{'p99 ÷ floor':>19}"
        f"{'CPU ms/call':>13}{'round trips':>13}{'in process µs (db)':>20}{'÷ healthz':>11}"
    )
    print(header + (f"{'earlier ÷ floor':>17}" if earlier else ""))

    def ratio(row, key):
        low, high = row.get(f"{key}_range", (None, None))
        text = f"{row[key]:.2f}"
        return text + (f" ({low:.2f}-{high:.2f})" if repeat > 1 else "")

    for name, row in report["calls"].items():
        line = f"{name:<24}{row['rate']:>8.0f}{row['p50_ms']:>9.1f}{row['p99_ms']:>9.1f}"
        if name == "floor":
            print(line + f"{'1.00':>19}{'1.00':>19}{row['cpu_ms']:>13.2f}{'-':>13}{'-':>20}{'-':>11}")
            continue
        line += f"{ratio(row, 'vs_floor'):>19}{ratio(row, 'p99_vs_floor'):>19}{row['cpu_ms']:>13.2f}{row['round_trips']:>13}"
        backend = row["in_process_backend_us"]
        in_process = f"{row['in_process_us']:.0f}" + (f" ({backend:.0f})" if backend else "")
        line += f"{in_process:>20}{row['in_process_vs_healthz']:>11.2f}"
        if earlier:
            before = earlier["calls"].get(name, {}).get("vs_floor")
            line += f"{before:>17.2f}" if before is not None else f"{'-':>17}"
        errors = row["socket_errors"] + row["http_errors"]
        print(line + (f"  ({row['http_errors']} HTTP errors, {row['socket_errors']} socket errors)" if errors else ""))
    if "list_many_vs_few" in report:
        few, many = options["packets"]
        ratio_line = f"list {many:,}÷{few:,} packets: {report['list_many_vs_few']:.2f} (each list's ÷ floor)"
        before = earlier.get("list_many_vs_few") if earlier else None
        print(ratio_line + (f"  (earlier {before:.2f})" if before is not None else ""))


if __name__ == "__main__":
    main()
