"""The production stack as `make stack` runs it (the Procfile under honcho, production settings),
on loopback, for the scripts that check it: stack_check.py (a smoke journey with outages, through
the proxy too), soak.py and vps_check.py (the $5 VPS profile, on SQLite without Redis). Each
process type runs under its own honcho so one of them (the worker) can be killed and started
again without taking the others down; `stop()` ends every one, even after a failure.
"""

import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
# A Redis database of its own: its Celery queue and rate-limit counts meet no other stack's.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"


def free_ports(count: int) -> int:
    """The first of `count` consecutive free loopback ports (honcho gives web.N the port base+N-1),
    below the kernel's range for outgoing connections, which could take them before the server binds."""
    try:
        lowest_ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        lowest_ephemeral = 32768
    for _ in range(100):
        base = random.randrange(10000, lowest_ephemeral - count)
        if all(_free(base + i) for i in range(count)):
            return base
    raise RuntimeError("no free ports")


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def wait_until_up(url: str, *, server: subprocess.Popen, deadline: float) -> None:
    """Until `url` answers /v1/healthz; RuntimeError if its `server` exits or the deadline passes."""
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"the server of {url} exited")
        try:
            urllib.request.urlopen(url + "/v1/healthz", timeout=1)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not come up") from None
            time.sleep(0.2)


class Stack:
    """`redis_url` None: no Redis (the embedded default: tasks run in the web process). A SQLite
    `database_url` (sqlite:///<folder>/ltm_stack....sqlite3) is a file, removed by create_database.
    `env`: more variables for every process (the $5 VPS profile's, say). `proxy`: the Procfile's
    proxy (nginx) can be started in front of the web processes, on a port of its own. `python`: the
    interpreter the Procfile's lines run with (its virtualenv's), if not this one's."""

    def __init__(
        self,
        *,
        database_url: str,
        redis_url: str | None,
        web_processes: int = 1,
        web_concurrency: int | None = 2,  # None: web.py's own default
        log_dir: Path,
        env: dict[str, str] | None = None,
        proxy: bool = False,
        python: Path | None = None,
    ):
        database = urllib.parse.urlsplit(database_url)
        if not Path(database.path).name.startswith("ltm_stack"):
            raise SystemExit("the stack scripts drop and create their database: name it ltm_stack...")
        self.database_url, self.redis_url = database_url, redis_url
        self.web_processes = web_processes
        self.port = free_ports(web_processes)
        self.proxy_port = free_ports(1)
        while self.port <= self.proxy_port < self.port + web_processes:
            self.proxy_port = free_ports(1)
        self.log_dir = log_dir
        self.honchos: dict[str, subprocess.Popen] = {}
        self.env = {
            **os.environ,
            # the virtualenv's python and celery, as the Procfile names them
            "PATH": f"{(python or Path(sys.executable)).absolute().parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "DJANGO_SETTINGS_MODULE": "hub.settings.production",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_COOKIES": "0",  # plain http on loopback
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url or "",
            "WEB_HOST": "127.0.0.1",
            **({"WEB_CONCURRENCY": str(web_concurrency)} if web_concurrency else {}),
            "PYTHONUNBUFFERED": "1",
            # every process of the stack counts its metrics under one folder (hub/metrics_dir.py)
            "PROMETHEUS_MULTIPROC_DIR": str(log_dir / "metrics"),
            "LTM_METRICS_TOKEN": secrets.token_urlsafe(24),
            # the webhook step's receiver listens on loopback (checks/stack_webhooks.py)
            "LTM_WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            **(self._proxy_env() if proxy else {}),
            **(env or {}),
        }
        unset = [*(() if redis_url else ("REDIS_URL",)), *(() if web_concurrency else ("WEB_CONCURRENCY",))]
        for name in ("DEBUG", "LTM_EXTERNAL_URL", "PORT", *unset):
            self.env.pop(name, None)

    def _proxy_env(self) -> dict[str, str]:
        # as `make stack` sets them: the hub reads the client's address from the proxy's header
        upstreams = ",".join(f"127.0.0.1:{self.port + i}" for i in range(self.web_processes))
        return {"PROXY_HOST": "127.0.0.1", "PROXY_UPSTREAMS": upstreams, "LTM_TRUST_PROXY_HEADERS": "1"}

    @property
    def web_urls(self) -> list[str]:
        return [f"http://127.0.0.1:{self.port + i}" for i in range(self.web_processes)]

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}"

    def create_database(self) -> None:
        database = urllib.parse.urlsplit(self.database_url)
        if database.scheme == "sqlite":
            for suffix in ("", "-wal", "-shm"):  # migrate makes the file again
                Path(database.path + suffix).unlink(missing_ok=True)
            return
        name = database.path.lstrip("/")
        with psycopg.connect(database._replace(path="/postgres").geturl(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')

    def manage(self, *args: str) -> str:
        """`python manage.py ...` with the stack's environment; returns its stdout."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout.strip()

    def release(self, *, collect_static: bool = True) -> None:
        """What a deploy does before it starts processes: static files (the image's build step),
        then the Procfile's `release` line."""
        if collect_static:
            self.manage("collectstatic", "--noinput", "-v0")
        honcho = self.start("release")
        if honcho.wait(timeout=300):
            raise RuntimeError("the release step failed:\n" + self.log("release"))
        del self.honchos["release"]

    def start(self, process: str) -> subprocess.Popen:
        """`honcho start <process>`, in a session of its own (so stop() can always reach it)."""
        port = self.proxy_port if process == "proxy" else self.port
        command = [sys.executable, "-m", "honcho", "start", "--no-colour", "-p", str(port)]
        if process == "web":
            command += ["-c", f"web={self.web_processes}"]
        log = open(self.log_dir / f"{process}.log", "ab")
        honcho = subprocess.Popen(
            command + [process], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        log.close()
        self.honchos[process] = honcho
        return honcho

    def log(self, process: str, lines: int = 40) -> str:
        path = self.log_dir / f"{process}.log"
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def wait_for_web(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        servers = [(url, "web") for url in self.web_urls]
        servers += [(self.proxy_url, "proxy")] if "proxy" in self.honchos else []
        for url, process in servers:
            try:
                wait_until_up(url, server=self.honchos[process], deadline=deadline)
            except RuntimeError as error:
                raise RuntimeError(f"{error}:\n" + self.log(process)) from None

    def processes(self, process: str) -> list[int]:
        """The pids running under the honcho of `process` (its shell, the program, its children)."""
        honcho = self.honchos.get(process)
        return descendants(honcho.pid) if honcho else []

    def kill(self, process: str) -> None:
        """SIGKILL to the process and everything it started: a crash, not a shutdown."""
        groups = {os.getpgid(pid) for pid in _alive(self.processes(process))}
        for group in groups:
            os.killpg(group, signal.SIGKILL)
        self.honchos.pop(process).wait(timeout=30)

    def stop(self) -> None:
        """Stop every honcho (each stops its processes: SIGTERM, then SIGKILL after 5 s); then
        kill whatever is left of them."""
        leftovers = [pid for process in self.honchos for pid in self.processes(process)]
        for honcho in self.honchos.values():
            if honcho.poll() is None:
                honcho.terminate()
        for honcho in self.honchos.values():
            try:
                honcho.wait(timeout=20)
            except subprocess.TimeoutExpired:
                honcho.kill()
                honcho.wait(timeout=10)
        for pid in _alive(leftovers):
            os.kill(pid, signal.SIGKILL)
        self.honchos.clear()


def descendants(root: int) -> list[int]:
    """Every process below `root`, from the parent pids in /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # after the command name (which may hold spaces and parentheses): state, ppid
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [], {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier}
        found += frontier
    return found


def _alive(pids) -> list[int]:
    alive = []
    for pid in pids:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    return alive
