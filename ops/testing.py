"""A populated hub, and the proof that a restored one answers the same: what the backup tests
share. Run as a script in a process of its own, on the database DATABASE_URL names:

    python -m ops.testing migrate populate:EXPECTED.json backup:FILE
    python -m ops.testing restore:FILE verify:EXPECTED.json backup:FILE accept:EXPECTED.json

`populate` makes people, tokens (a personal one and one from the device flow), a team with a
member, invites, personal and team packets, one the secret scan flags, a share and a published
packet, through the API where the API does it, and writes what the API answers then: every
packet's bytes as pulled, the lists, the team's members, log and invites, the shares and
findings. `verify` asks the same questions of the restored hub and fails on any difference;
`accept` then lets carol in with the invite made before the backup.
"""

import json
import sys
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
        elif verb == "accept":
            accept(json.loads(Path(argument).read_text()))
        else:
            raise SystemExit(f"unknown step {step!r}")


if __name__ == "__main__":
    import django

    django.setup()
    run(sys.argv[1:])
