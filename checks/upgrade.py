"""CI's upgrade check: a hub built by an earlier release of this repository, filled through its
own API, then migrated by today's code and read through today's API, on SQLite and PostgreSQL.

    python checks/upgrade.py [--from COMMIT] [--database sqlite|postgresql|both]

PostgreSQL: a scratch database on DATABASE_URL's server (else postgres://postgres@127.0.0.1:5432),
dropped at the end.

The earlier code is COMMIT's tree (`git archive`, in a temporary folder), run with this
checkout's virtualenv (the requirements are the same) and its own copy of the `ltm` package
(PYTHONPATH). With it: `migrate`, people and personal tokens through its commands, then, from
its server, a device-flow token (a person signs in and approves, as in a browser), a team with a
member who joined by invite, a pending invite, personal and team packets, one the secret scan
flags, a share and a published packet. Every answer to a fixed list of questions is kept. Then
today's `migrate` on the same database, today's server, the same questions: each packet must pull
byte for byte as before, and every other answer must still say all it said (today's may add
fields). Last, the pending invite still lets its person in, and a search finds the packets.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "checks"))

from stack_http import PASSWORD, Http, check, csrf, new_packet, poll_for_token, start_device_flow  # noqa: E402

# The earlier release: the last commit before the hub had a version, an outbox and the quarantine
# of public pages (three migrations for today's code to run).
FROM_COMMIT = "7b84e8e"
SECRET = "glpat-Xq7vR2mK9pL4sT8wZ3nB"  # made up, in a real format: the secret scan flags it


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Hub:
    """The code in `folder` on `database_url`: its commands, and its server while `serving()`."""

    def __init__(self, folder: Path, database_url: str, own_cli: bool):
        self.folder = folder
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "hub.settings.local",
            "ALLOWED_HOSTS": "127.0.0.1",
            "LTM_WARM_UP": "0",
        }
        self.env.pop("REDIS_URL", None)  # tasks run in the server's process: nothing is left queued
        if own_cli:
            self.env["PYTHONPATH"] = os.pathsep.join([str(folder), str(folder / "cli")])

    def manage(self, *args) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        check(done.returncode == 0, f"manage.py {' '.join(args)} in {self.folder}: {done.stderr[-3000:]}")
        return done.stdout

    @contextmanager
    def serving(self):
        port = free_port()
        log = tempfile.TemporaryFile(mode="w+")  # runserver writes a line per request: never a pipe nobody reads
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", "--nothreading", f"127.0.0.1:{port}"],
            cwd=self.folder,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while not healthy(base):
                check(server.poll() is None, f"the server in {self.folder} exited: {_tail(log)}")
                check(time.monotonic() < deadline, "the server did not answer within 60 s")
                time.sleep(0.3)
            yield base
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()


def _tail(log) -> str:
    log.seek(0)
    return log.read()[-3000:]


def healthy(base: str) -> bool:
    try:
        return Http().call("GET", base + "/v1/healthz", timeout=2)[0] == 200
    except OSError:  # not listening yet (urllib's URLError is one)
        return False


def populate(hub: Hub) -> dict:
    for name in ("alice", "bob", "carol"):
        hub.manage("ltm_user", name, "--password", PASSWORD)
    tokens = {name: hub.manage("ltm_token", name, "--name", "laptop").strip() for name in ("alice", "bob", "carol")}
    with hub.serving() as base:
        tokens["alice-device"] = device_token(base, "alice")
        alice, bob = Http(tokens["alice"]), Http(tokens["bob"])
        alice.expect(201, "POST", base + "/v1/teams", body={"name": "alpha"})
        code = alice.expect(201, "POST", base + "/v1/teams/alpha/invites", body={})["code"]
        check(bob.call("POST", base + f"/v1/invites/{code}/accept", body={})[0] in (200, 201), "bob could not join")
        pending = alice.expect(201, "POST", base + "/v1/teams/alpha/invites", body={})["code"]
        packets = [new_packet(f"personal packet {n} ✓ ünïcode") for n in range(3)]
        team_packets = [new_packet(f"team packet {n}") for n in range(2)]
        flagged = {**new_packet("a packet with a secret in it"), "next_step": f"clone with {SECRET} and run it"}
        for packet in [*packets, flagged]:
            alice.expect(201, "POST", base + "/v1/packets", body=packet)
        for packet in team_packets:
            bob.expect(201, "POST", base + "/v1/packets?team=alpha", body=packet)
        alice.expect(201, "POST", base + f"/v1/packets/{packets[0]['id']}/shares", body={"to": "bob"})
        check(alice.call("POST", base + f"/v1/packets/{packets[1]['id']}/publish")[0] in (200, 201), "no publish")
        ids = [packet["id"] for packet in [*packets, *team_packets, flagged]]
        ask(base, tokens, ids)  # a first read changes what reads show (a share seen)
        answers = ask(base, tokens, ids)
        refused = [f"{a['who']} GET {a['path']}: {a['status']}" for a in answers if a["status"] != 200]
        check(not refused, "the earlier hub did not answer its own data: " + ", ".join(refused))
        return {"tokens": tokens, "ids": ids, "pending": pending, "answers": answers}


def device_token(base: str, username: str) -> str:
    grant = start_device_flow(base)
    person = Http()
    person.sign_in(base, username)
    page = person.expect(200, "GET", base + f"/device?user_code={grant['user_code']}")
    form = {"csrfmiddlewaretoken": csrf(page), "user_code": grant["user_code"], "action": "approve"}
    check(person.call("POST", base + "/device/decide", form=form)[0] == 302, "the device grant was not approved")
    return poll_for_token(base, grant)


def questions(ids: list[str]) -> list[tuple[str, str]]:
    """(whose token, path): what today's hub must answer as the earlier one did."""
    return [
        *(("alice", f"/v1/packets/{packet_id}") for packet_id in ids),
        ("bob", f"/v1/packets/{ids[0]}"),
        ("alice-device", f"/v1/packets/{ids[1]}"),
        ("alice", "/v1/packets?limit=500"),
        ("alice-device", "/v1/packets?limit=500"),
        ("bob", "/v1/packets?limit=500&team=alpha"),
        ("alice", "/v1/teams"),
        ("alice", "/v1/teams/alpha/members"),
        ("alice", "/v1/teams/alpha/events"),
        ("alice", "/v1/teams/alpha/invites"),
        ("bob", "/v1/shares"),
        ("alice", f"/v1/packets/{ids[-1]}/findings"),
    ]


def ask(base: str, tokens: dict, ids: list[str]) -> list[dict]:
    answers = []
    for who, path in questions(ids):
        status, text = Http(tokens[who]).call("GET", base + path)
        answers.append({"who": who, "path": path, "status": status, "text": text})
    return answers


def still_says(before, after) -> bool:
    """Whether `after` says everything `before` said: equal, or more fields in its objects."""
    if isinstance(before, dict):
        return isinstance(after, dict) and all(
            key in after and still_says(value, after[key]) for key, value in before.items()
        )
    if isinstance(before, list):
        return isinstance(after, list) and len(before) == len(after) and all(map(still_says, before, after))
    return before == after


def compare(expected: dict, now: list[dict]) -> list[str]:
    problems = []
    for before, after in zip(expected["answers"], now, strict=True):
        where = f"{before['who']} GET {before['path']}"
        if before["status"] != after["status"]:
            problems.append(f"{where}: {before['status']} then, {after['status']} now: {after['text'][:300]}")
        elif before["path"].startswith("/v1/packets/") and before["status"] == 200:
            if before["text"] != after["text"]:
                problems.append(f"{where}: the packet no longer pulls byte for byte")
        elif not still_says(json.loads(before["text"]), json.loads(after["text"])):
            problems.append(f"{where}: {before['text'][:300]} then, {after['text'][:300]} now")
    return problems


def upgrade(old: Path, database_url: str) -> None:
    earlier = Hub(old, database_url, own_cli=True)
    earlier.manage("migrate", "--noinput")
    expected = populate(earlier)
    today = Hub(ROOT, database_url, own_cli=False)
    today.manage("migrate", "--noinput")
    with today.serving() as base:
        problems = compare(expected, ask(base, expected["tokens"], expected["ids"]))
        check(not problems, "today's hub answers otherwise after the upgrade:\n" + "\n".join(problems))
        carol = Http(expected["tokens"]["carol"])
        status, text = carol.call("POST", base + f"/v1/invites/{expected['pending']}/accept", body={})
        check(status in (200, 201), f"the invite made before the upgrade no longer works: {status} {text[:300]}")
        # The search index as today's code keeps it (on SQLite, built anew from the packets).
        hits = Http(expected["tokens"]["alice"]).expect(200, "GET", base + "/v1/search?q=personal&mode=keyword")
        personal = set(expected["ids"][:3])
        found = {hit["id"] for hit in hits["results"]}
        check(
            personal <= found, f"a search after the upgrade misses packets made before it: {sorted(personal - found)}"
        )


@contextmanager
def a_database(kind: str, folder: Path):
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'upgrade.sqlite3'}"
        return
    import psycopg

    # The server of DATABASE_URL (CI's), else the local one.
    url = os.environ.get("DATABASE_URL", "")
    server = (
        url.rsplit("/", 1)[0]
        if url.startswith(("postgres://", "postgresql://"))
        else "postgres://postgres@127.0.0.1:5432"
    )
    name = f"ltm_upgrade_{os.getpid()}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield f"{server}/{name}"
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def earlier_tree(commit: str, folder: Path) -> Path:
    old = folder / "earlier"
    old.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    return old


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--from", dest="commit", default=FROM_COMMIT, help=f"the earlier release (default {FROM_COMMIT})"
    )
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"], default="both")
    arguments = parser.parse_args()
    kinds = ["sqlite", "postgresql"] if arguments.database == "both" else [arguments.database]
    with tempfile.TemporaryDirectory(prefix="ltm-upgrade-") as temporary:
        old = earlier_tree(arguments.commit, Path(temporary))
        for kind in kinds:
            started = time.monotonic()
            with a_database(kind, Path(temporary)) as database_url:
                upgrade(old, database_url)
            print(
                f"upgrade from {arguments.commit} on {kind}: data made by its API reads the same ({time.monotonic() - started:.0f}s)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
