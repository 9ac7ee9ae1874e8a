"""The tables `make bench` prints (bench/bench.py): each call under 32 connections beside the
floor, then each call with one client (bench/one_client.py)."""

from one_client import print_one_client


def print_report(report, earlier=None) -> None:
    print_table(report, earlier)
    print_one_client(report)


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
