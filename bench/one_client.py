"""The bench's one-client pass (bench/bench.py): each call with one connection (wrk, one thread),
right after the floor (bench/floor.py) with one connection, and their p50, p99 and max.

Why beside the 32-connection runs: with 32 connections on two cores a call's latency is mostly its
wait in the queue (a p99 follows the throughput). With one client nothing queues: what is left is
the call itself and what now and then lands on one request: a garbage collection, work the process
does on first use, an fsync, a batch of the search index, another process taking the core. The
floor's own max shows what the machine alone adds in the same moment.

Each side is measured after a warm-up of at least a second (the bench's --warmup), so the max
leaves out a worker's first requests; with --repeat N, the run of the median p99 is shown, with the
range of the p99s and of the maxima in brackets.
"""

from wrk_runs import run_wrk

FIGURES = ("p50_ms", "p99_ms", "max_ms")


def measure_one_client(port, floor_port, path, args, **wrk_options) -> dict:
    """The floor's figures and the call's with one client, `args.repeat` times."""
    warmup = max(1, args.warmup)
    runs = []
    for _ in range(args.repeat):
        run_wrk(floor_port, "/", args, seconds=warmup, connections=1)
        floor = run_wrk(floor_port, "/", args, connections=1)
        run_wrk(port, path, args, seconds=warmup, connections=1, **wrk_options)
        call = run_wrk(port, path, args, connections=1, **wrk_options)
        if call["http_errors"]:
            raise SystemExit(f"{path}: {call['http_errors']} answers were HTTP errors with one client")
        runs.append({**{key: call[key] for key in ("requests", "seconds", *FIGURES)}, "floor": _figures(floor)})
    middle = sorted(runs, key=lambda run: run["p99_ms"])[len(runs) // 2]
    return {
        **middle,
        "p99_range": [min(run["p99_ms"] for run in runs), max(run["p99_ms"] for run in runs)],
        "max_range": [min(run["max_ms"] for run in runs), max(run["max_ms"] for run in runs)],
        "runs": runs,
    }


def _figures(run: dict) -> dict:
    return {key: run[key] for key in FIGURES}


def print_one_client(report) -> None:
    """The pass's table, when the report has one (not with --no-one-client)."""
    rows = {name: row["one_client"] for name, row in report["calls"].items() if "one_client" in row}
    if not rows:
        return
    options = report["options"]
    repeat = options.get("repeat", 1)
    print(
        f"\nOne client (wrk, 1 connection), {options['duration']} s per call after {max(1, options['warmup'])} s of "
        f"warm-up, {repeat} run(s) each; the floor measured with one client just before each call"
    )
    print(
        f"{'call':<24}{'p50 ms':>9}{'p99 ms':>22}{'max ms':>20}{'max ÷ p99':>11}"
        f"{'floor p50':>11}{'floor p99':>11}{'floor max':>11}{'p99 ÷ floor':>13}"
    )
    for name, row in rows.items():
        floor = row["floor"]
        p99 = f"{row['p99_ms']:.2f}" + (" ({:.2f}-{:.2f})".format(*row["p99_range"]) if repeat > 1 else "")
        peak = f"{row['max_ms']:.1f}" + (" ({:.1f}-{:.1f})".format(*row["max_range"]) if repeat > 1 else "")
        print(
            f"{name:<24}{row['p50_ms']:>9.2f}{p99:>22}{peak:>20}{row['max_ms'] / row['p99_ms']:>11.1f}"
            f"{floor['p50_ms']:>11.2f}{floor['p99_ms']:>11.2f}{floor['max_ms']:>11.1f}"
            f"{row['p99_ms'] / floor['p99_ms']:>13.1f}"
        )
