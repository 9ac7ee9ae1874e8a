"""wrk runs of the bench (bench/bench.py, bench/one_client.py): a run's requests, latency and the
CPU the serving processes spent during it, and the median of repeated runs."""

import json
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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
