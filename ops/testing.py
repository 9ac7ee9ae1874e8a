"""A populated hub, and the proof that a restored one answers the same: what the backup tests
share. Run as a script in a process of its own, on the database DATABASE_URL names:

    python -m ops.testing migrate populate:EXPECTED.json backup:FILE
    python -m ops.testing restore:FILE verify:EXPECTED.json backup:FILE accept:EXPECTED.json
    python -m ops.testing migrate snapshot:FILE

`populate` makes people, tokens (a personal one and one from the device flow), a team with a
member, invites, personal and team packets, one the secret scan flags, a share and a published
packet, through the API where the API does it, and writes what the API answers then: every
packet's bytes as pulled, the lists, the team's members, log and invites, the shares and
findings. `verify` asks the same questions of the restored hub and fails on any difference;
`accept` then lets carol in with the invite made before the backup. `snapshot` writes a backup
while another connection adds a person halfway through, and checks the file has the hub as it
was when the backup began.
"""

import json
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

from ulid import ULID

SECRET = "glpat-Xq7vR2mK9pL4sT8wZ3nB"  # made up, in a real format: the secret scan flags it


def _client():
    from django.test import Client

    return Client()


def call(method: str, path: str, token: str | None = None, body=None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    client = _client()
    if method == "GET":
        return client.get(path, **headers)
    return client.generic(method, path, json.dumps(body if body is not None else {}), "application/json", **headers)


def _ok(response, *statuses):
    assert response.status_code in statuses, (response.status_code, response.content[:300])
    return response


def a_packet(goal: str, **changes) -> dict:
    from ltm.protocol.packet import example_packet

    return {**example_packet(), "id": str(ULID()), "goal": goal, **changes}


def populate() -> dict:
    from accounts.services import api_token_create, user_upsert
    from oauth.testing import device_token

    people = {
        name: user_upsert(username=name, password="correct-horse-battery")[0] for name in ("alice", "bob", "carol")
    }
    tokens = {name: api_token_create(actor=user, name="laptop")[1] for name, user in people.items()}
    tokens["alice-device"] = device_token(_client(), people["alice"])
    alice, bob = tokens["alice"], tokens["bob"]
    _ok(call("POST", "/v1/teams", alice, {"name": "alpha"}), 201)
    joined = _ok(call("POST", "/v1/teams/alpha/invites", alice, {}), 201).json()["code"]
    _ok(call("POST", f"/v1/invites/{joined}/accept", bob, {}), 200, 201)
    pending = _ok(call("POST", "/v1/teams/alpha/invites", alice, {"label": "for carol"}), 201).json()["code"]
    packets = [a_packet(f"personal packet {n} ✓ ünïcode") for n in range(3)]
    for packet in packets:
        _ok(call("POST", "/v1/packets", alice, packet), 201)
    team_packets = [a_packet(f"team packet {n}") for n in range(2)]
    for packet in team_packets:
        _ok(call("POST", "/v1/packets?team=alpha", bob, packet), 201)
    flagged = a_packet("a packet with a secret in it", next_step=f"clone with {SECRET} and run the suite")
    _ok(call("POST", "/v1/packets", alice, flagged), 201)
    _ok(call("POST", f"/v1/packets/{packets[0]['id']}/shares", alice, {"to": "bob", "note": "have a look"}), 201)
    _ok(call("POST", f"/v1/packets/{packets[1]['id']}/publish", alice), 200, 201)
    ids = [packet["id"] for packet in packets + team_packets + [flagged]]
    answers(tokens, ids, flagged["id"])  # a first read changes what reads show (a share seen)
    return {"tokens": tokens, "pending_invite": pending, "answers": answers(tokens, ids, flagged["id"]), "ids": ids}


def questions(ids: list[str], flagged: str) -> list[tuple[str, str]]:
    """(whose token, path): what a restored hub must answer as the original did."""
    asked = [("alice", f"/v1/packets/{packet_id}") for packet_id in ids]
    asked += [
        ("alice", "/v1/packets?limit=500"),
        ("alice", "/v1/packets?limit=500&team=alpha"),
        ("alice-device", "/v1/packets?limit=500"),
        ("alice-device", f"/v1/packets/{ids[0]}"),
        ("alice", "/v1/teams"),
        ("alice", "/v1/teams/alpha/members"),
        ("alice", "/v1/teams/alpha/events"),
        ("alice", "/v1/teams/alpha/invites"),
        ("alice", "/v1/shares?direction=out"),
        ("bob", "/v1/shares"),
        ("bob", f"/v1/packets/{ids[0]}"),
        ("alice", f"/v1/packets/{flagged}/findings"),
        ("alice", "/v1/findings"),
        ("alice", "/v1/search?q=packet"),
        ("carol", "/v1/packets?limit=500"),
    ]
    return asked


# Headers that say something of the packet (published or not); the others are the request's own.
KEPT_HEADERS = ("X-LTM-Published-At", "X-LTM-Public-URL", "Content-Type")


def answers(tokens: dict, ids: list[str], flagged: str) -> list[dict]:
    answered = []
    for who, path in questions(ids, flagged):
        response = call("GET", path, tokens[who])
        answered.append(
            {
                "who": who,
                "path": path,
                "status": response.status_code,
                "headers": {name: response[name] for name in KEPT_HEADERS if response.has_header(name)},
                "body": comparable(path, response.content.decode()),
            }
        )
    return answered


def comparable(path: str, body: str):
    """A packet as pulled is compared byte for byte; other answers as JSON values, since a JSON
    column of PostgreSQL (jsonb) keeps its keys in an order of its own; a search by what it found,
    since each engine ranks in its own way."""
    if path.startswith("/v1/packets/"):
        return body
    value = json.loads(body)
    if path.startswith("/v1/search"):
        return sorted(result["id"] for result in value["results"])
    return value


def verify(expected: dict) -> None:
    """Every answer as before."""
    now = answers(expected["tokens"], expected["ids"], expected["ids"][-1])
    differences = [
        f"{before['who']} GET {before['path']}: {before['status']} {_around(before, after)}"
        for before, after in zip(expected["answers"], now, strict=True)
        if before != after
    ]
    assert not differences, "the restored hub answers differently:\n" + "\n".join(differences)


def accept(expected: dict) -> None:
    """The pending invite still lets carol in."""
    accepted = call("POST", f"/v1/invites/{expected['pending_invite']}/accept", expected["tokens"]["carol"], {})
    assert accepted.status_code in (200, 201), accepted.content
    assert [team["name"] for team in call("GET", "/v1/teams", expected["tokens"]["carol"]).json()["teams"]] == ["alpha"]


def _around(before: dict, after: dict) -> str:
    """Where two answers part, with a little of each."""
    if before["status"] != after["status"] or before["headers"] != after["headers"]:
        return f"{before['status']} {before['headers']} → {after['status']} {after['headers']}"
    old, new = json.dumps(before["body"]), json.dumps(after["body"])
    at = next((n for n, (a, b) in enumerate(zip(old, new)) if a != b), len(old))
    return f"at {at}: {old[max(0, at - 80) : at + 80]!r} → {new[max(0, at - 80) : at + 80]!r}"


def backup_while_writing(path: str) -> None:
    """A person signs up, on another connection, after the backup has read its first table and
    before it reads the people's: the file must not hold them, the database must."""
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import User
    from accounts.services import user_upsert
    from ops import backup

    before = User.objects.count()
    read_table = backup._write_table  # noqa: SLF001
    done = []

    def sign_up():
        try:
            user_upsert(username="during-the-backup", password="correct-horse-battery")
        finally:
            connection.close()  # this thread's own connection

    def write_table(archive, model, using):
        if not done:
            writer = threading.Thread(target=sign_up)
            writer.start()
            writer.join()
            done.append(model._meta.label)
        return read_table(archive, model, using)

    backup._write_table = write_table  # noqa: SLF001
    try:
        call_command("ltm_backup", output=path, verbosity=0)
    finally:
        backup._write_table = read_table  # noqa: SLF001
    assert done[0] < "accounts.User", done  # the person came after the snapshot, before their table
    assert User.objects.count() == before + 1
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        users = next(table for table in manifest["tables"] if table["model"] == "accounts.User")
        names = [row for row in archive.read(users["part"]).splitlines() if b"during-the-backup" in row]
    assert (users["rows"], names) == (before, []), "the backup saw a write made after it began"


def steps(database_url: str, *steps: str) -> None:
    """Run `steps` in a process of their own on `database_url`, as an operator runs the commands
    (what the tests call)."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",
        "ALLOWED_HOSTS": "testserver",
        # As docs/production.md says to run the commands: a restore migrates a schema from nothing,
        # whose statements outlast the web's bound on a busy CI machine.
        "DB_STATEMENT_TIMEOUT": "0",
    }
    env.pop("REDIS_URL", None)  # tasks run in the process; nothing here needs the broker
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "ops.testing", *steps], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-6000:]


def run(steps: list[str]) -> None:
    from django.core.management import call_command

    for step in steps:
        verb, _, argument = step.partition(":")
        if verb == "migrate":
            call_command("migrate", interactive=False, verbosity=0)
        elif verb == "populate":
            Path(argument).write_text(json.dumps(populate()))
        elif verb == "backup":
            call_command("ltm_backup", output=argument, verbosity=0)
        elif verb == "restore":
            call_command("ltm_restore", argument, verbosity=0)
        elif verb == "verify":
            verify(json.loads(Path(argument).read_text()))
        elif verb == "snapshot":
            backup_while_writing(argument)
        elif verb == "accept":
            accept(json.loads(Path(argument).read_text()))
        else:
            raise SystemExit(f"unknown step {step!r}")


if __name__ == "__main__":
    import django

    django.setup()
    run(sys.argv[1:])
