"""How long `ltm_backup` and `ltm_restore` take for a hub of --packets packets (100,000 by
default), on SQLite and on PostgreSQL (DATABASE_URL's server, or postgres://postgres@127.0.0.1).

    python bench/backup_restore.py [--packets 100000] [--database sqlite|postgresql|both]
                                   [--postgresql-names SOURCE TARGET]

Each engine: a scratch database seeded as the bench seeds (bench/seeding.py: 3 KB packets by bulk
insert), then the backup timed as the command runs it, the file's size, then the restore into an
empty database of the same engine (which includes making its schema and the final checks). The
figures go to docs/benchmarks.md and bench/README.md's history. Scratch databases (on PostgreSQL
named by --postgresql-names, else after this process) are dropped at the end.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(database_url: str, *command, **more_env) -> tuple[float, str]:
    # No bound on a statement, as docs/production.md says to run the commands on a big hub.
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "hub.settings.local",
        "DB_STATEMENT_TIMEOUT": "0",
        **more_env,
    }
    env.pop("REDIS_URL", None)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return time.monotonic() - started, done.stdout


def manage(database_url: str, *args) -> float:
    """The command's own time, as it reports it (the process's start is left out)."""
    _, out = run(database_url, sys.executable, "manage.py", *args)
    return float(re.search(r"([0-9.]+)s\s*$", out.strip()).group(1))


def databases(kind: str, scratch: Path, names: list[str] | None):
    if kind == "sqlite":
        return f"sqlite:///{scratch / 'source.sqlite3'}", f"sqlite:///{scratch / 'target.sqlite3'}", None
    import psycopg

    server = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/x").rsplit("/", 1)[0]
    names = names or [f"ltm_bench_backup_source_{os.getpid()}", f"ltm_bench_backup_target_{os.getpid()}"]
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        for name in names:
            admin.execute(f"DROP DATABASE IF EXISTS {name}")
            admin.execute(f"CREATE DATABASE {name}")

    def drop():
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            for name in names:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    return f"{server}/{names[0]}", f"{server}/{names[1]}", drop


def measure(kind: str, packets: int, names: list[str] | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="ltm-bench-backup-") as folder:
        scratch = Path(folder)
        source, target, drop = databases(kind, scratch, names)
        try:
            # Bound on the client: the seeding's bulk inserts hold more parameters than PostgreSQL
            # takes in one statement bound on the server.
            seeded, _ = run(source, sys.executable, __file__, "--seed", str(packets), DB_PREPARED_STATEMENTS="0")
            backup_file = scratch / "hub.zip"
            backup = manage(source, "ltm_backup", "--output", str(backup_file))
            restore = manage(target, "ltm_restore", str(backup_file))
            return {
                "kind": kind,
                "seed": seeded,
                "backup": backup,
                "restore": restore,
                "bytes": backup_file.stat().st_size,
            }
        finally:
            if drop:
                drop()


def seed(packets: int) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import seeding

    seeding.setup_database()
    seeding.seed(packets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--packets", type=int, default=100_000)
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument(
        "--postgresql-names", nargs=2, metavar=("SOURCE", "TARGET"), help="the scratch databases on PostgreSQL"
    )
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)  # the seeding step's own process
    arguments = parser.parse_args()
    if arguments.seed is not None:
        return seed(arguments.seed)
    kinds = ["sqlite", "postgresql"] if arguments.database == "both" else [arguments.database]
    print(f"{'database':<11} {'packets':>8} {'backup':>8} {'restore':>8} {'file':>9}")
    for kind in kinds:
        figures = measure(kind, arguments.packets, arguments.postgresql_names)
        print(
            f"{kind:<11} {arguments.packets:>8,} {figures['backup']:>7.1f}s {figures['restore']:>7.1f}s "
            f"{figures['bytes'] / 2**20:>6.0f} MiB"
        )


if __name__ == "__main__":
    main()
