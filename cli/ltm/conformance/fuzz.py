"""`--fuzz N`: N hostile requests, whose only expectation is that the server answers each one, in
less than 5 seconds, with something other than a 5xx.

The requests come from one random generator seeded with `seed`, so the same seed sends the same
requests again (packet ids included): a failure is replayed with `--seed`. They are mutations of
valid packets guided by the packet schema (a required field dropped, a value of the wrong type,
an unknown field, a string past its maximum), odd ids in paths, odd query strings, headers and
encodings. Whatever they happen to create (a push that is accepted, a team) is deleted
afterwards, as the checks' is.
"""

from __future__ import annotations

import copy
import json
import random
import re
import string
import urllib.parse
from dataclasses import dataclass

from ..protocol.packet import schema
from .fixtures import fixtures
from .runner import Result, Runner
from .wire import Exchange, send

HANG_SECONDS = 5.0
_TEAM_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

# Values of every JSON type, each odd in its own way.
_HOSTILE_VALUES = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5e300,
    "",
    " ",
    "\u202e\u0000\ufeff",
    "x" * 5000,
    "🧪" * 300,
    "<script>alert(1)</script>",
    "'; DROP TABLE packets; --",
    "../../etc/passwd",
    [],
    [[[[[]]]]],
    {},
    {"$ref": "#"},
    ["a"] * 200,
]
_ODD_SEGMENTS = [
    "..",
    "%2e%2e",
    "%00",
    "%ff%fe",
    "%",
    "%zz",
    "a%2Fb",
    "%3Fx%3D1",
    "%20",
    "%F0%9F%A7%AA" * 20,
    "a" * 3000,
    "-",
    "~",
    "%E2%80%AE",
    "null",
    "0",
]
_ODD_HEADERS = [
    {"Content-Type": "text/plain"},
    {"Content-Type": "application/json; charset=latin-1"},
    {"Content-Type": "multipart/form-data; boundary=x"},
    {"Content-Type": "application/x-www-form-urlencoded"},
    {"Content-Encoding": "gzip"},
    {"Accept": "text/html"},
    {"Accept": "*/*;q=oops"},
    {"Accept-Language": "x" * 500},
    {"X-Forwarded-Host": "evil.example, other.example"},
    {"X-Forwarded-Proto": "gopher"},
    {"X-Forwarded-For": "not an address"},
    {"Cookie": "sessionid=" + "a" * 300},
    {"Range": "bytes=0-1"},
    {"If-None-Match": "*"},
]


@dataclass
class Hostile:
    method: str
    path: str
    headers: dict
    body: bytes
    who: str = "alice"  # whose token is sent ("nobody": none, "raw": the headers say)


class Generator:
    """The hostile requests of one seed."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)
        self.kinds = [self.mutated_packet, self.encoded_packet, self.odd_id, self.odd_query, self.odd_auth]
        self.kinds += [self.odd_method, self.odd_team, self.odd_token_form]

    def requests(self, count: int) -> list[Hostile]:
        made = []
        for _ in range(count):
            request = self.random.choice(self.kinds)()
            if self.random.random() < 0.2:
                request.headers.update(self.random.choice(_ODD_HEADERS))
            made.append(request)
        return made

    def packet_id(self) -> str:
        return "fz" + "".join(self.random.choices(string.ascii_uppercase + string.digits, k=24))

    def packet(self) -> dict:
        return {
            **copy.deepcopy(fixtures()[self.random.choice(list(fixtures()))]),
            "id": self.packet_id(),
            "created_at": "2026-01-01T00:00:00Z",
        }

    def push(self, body: bytes, **headers) -> Hostile:
        team = self.random.choice(["", "", "?team=" + self.random.choice(["x", "%00", "a" * 50, "../teams"])])
        return Hostile("POST", "/v1/packets" + team, {"Content-Type": "application/json", **headers}, body)

    # --- the kinds of hostile request -----------------------------------------------------

    def mutated_packet(self) -> Hostile:
        """A packet with one to three schema-aware mutations."""
        packet = self.packet()
        for _ in range(self.random.randint(1, 3)):
            self.mutate(packet)
        return self.push(json.dumps(packet, ensure_ascii=self.random.random() < 0.5).encode("utf-8"))

    def mutate(self, packet: dict) -> None:
        properties = schema(packet.get("ltm_version") if packet.get("ltm_version") in ("0.1", "0.2") else "0.2")
        # The id is mutated only into ids this run made up: a made-up id cannot be somebody's packet.
        fields = [field for field in properties["properties"] if field != "id"]
        name = self.random.choice(fields)
        choice = self.random.randrange(6)
        if choice == 0:
            packet.pop(self.random.choice(properties["required"]), None)
        elif choice == 1:
            packet[name] = self.random.choice(_HOSTILE_VALUES)
        elif choice == 2:
            packet["x_" + self.random.choice(["extra", "__proto__", "constructor", "ü"])] = self.random.choice(
                _HOSTILE_VALUES
            )
        elif choice == 3:
            limit = properties["properties"][name].get("maxLength", 1024)
            packet[name] = "z" * (limit + self.random.choice([0, 1, 100]))
        elif choice == 4 and _first_decision(packet) is not None:
            _first_decision(packet)[self.random.choice(["what", "why", "locked", "extra"])] = self.random.choice(
                _HOSTILE_VALUES
            )
        else:
            made_up = self.packet_id()
            packet["id"] = self.random.choice(["", "short", made_up + "x" * 40, made_up + "/../x", "🧪" * 5 + made_up])

    def encoded_packet(self) -> Hostile:
        """A valid packet's bytes, then broken: cut, padded past 32 KiB, not UTF-8, BOM-led,
        nested deep, with duplicate keys or JSON's non-standard constants."""
        body = json.dumps(self.packet()).encode()
        broken = self.random.choice(
            [
                body[: self.random.randrange(len(body))],
                body + b" " * 40000,
                body.replace(b'"goal": "', b'"goal": "\xff\xfe', 1),
                b"\xef\xbb\xbf" + body,
                b'{"a":' * 5000 + b"1" + b"}" * 5000,
                b"[" * 100000,
                body[:-1] + b', "goal": "twice", "goal": "again"}',
                body.replace(b'"ltm_version"', b'"ltm_version": NaN, "_"', 1),
                body.replace(b'"goal": "', b'"goal": "\\ud800', 1),
                b"\x00" * 100,
                body.decode().encode("utf-16"),
            ]
        )
        return self.push(broken)

    def odd_id(self) -> Hostile:
        """An odd id in a packet path. Only GET reads any odd id; POST and DELETE name ids this run
        made up, so they cannot publish or remove a packet that happens to have an odd id."""
        method = self.random.choice(["GET", "GET", "POST", "DELETE"])
        segment = self.random.choice(_ODD_SEGMENTS)
        if method != "GET":
            segment = self.packet_id() + self.random.choice(["", "%00", "..", "%2F..", "~"])
        suffix = self.random.choice(["", "", "/publish", "/thread", "/", "/publish/x"])
        return Hostile(method, f"/v1/packets/{segment}{suffix}", {}, b"")

    def odd_query(self) -> Hostile:
        path = self.random.choice(["/v1/packets", "/v1/search", "/v1/export", "/v1/teams"])
        value = self.random.choice(
            [
                "-999999999999999999999999",
                "1e9",
                "%00",
                "0x10",
                "",
                "%ff",
                "50&limit=1",
                "[]",
                "a" * 1000,
                "%F0%9F%A7%AA",
            ]
        )
        key = self.random.choice(["limit", "team", "q", "format", "before", "limit[]"])
        return Hostile("GET", f"{path}?{key}={value}", {}, b"")

    def odd_auth(self) -> Hostile:
        header = self.random.choice(
            [
                "Bearer " + "A" * 4000,
                "Bearer \t ltm_x",
                "bearer ltm_lowercase_scheme",
                "Bearer ltm_\u00e9\u00e8".encode().decode("latin-1"),
                "Bearer a b c",
                "Token abc",
                "Bearer " + "%00" * 10,
                "Digest username=x",
            ]
        )
        path = self.random.choice(["/v1/packets", "/v1/teams", "/v1/healthz", "/v1/me"])
        return Hostile("GET", path, {"Authorization": header}, b"", who="raw")

    def odd_method(self) -> Hostile:
        # Methods HTTP defines, so the right refusal is a 405 (501 is a fair answer to a method a
        # server has never heard of, such as PROPFIND).
        method = self.random.choice(["PUT", "PATCH", "OPTIONS", "HEAD", "DELETE"])
        path = self.random.choice(
            ["/v1/packets", "/v1/healthz", "/v1/teams", "/oauth/token", "/oauth/authorize_device"]
        )
        return Hostile(method, path, {"Content-Type": "application/json"}, b"{}")

    def odd_team(self) -> Hostile:
        # Never a valid team name: leaving or inviting to a team the account is really in is not
        # the fuzz's to do.
        name = self.random.choice([segment for segment in _ODD_SEGMENTS if not _TEAM_NAME.fullmatch(segment)])
        if self.random.random() < 0.5:
            body = {"name": self.random.choice(_HOSTILE_VALUES + ["fz" + self.packet_id().lower()[:20]])}
            if self.random.random() < 0.3:
                body["extra"] = self.random.choice(_HOSTILE_VALUES)
            return Hostile("POST", "/v1/teams", {"Content-Type": "application/json"}, json.dumps(body).encode())
        suffix = self.random.choice(["/members", "/invites", "/leave", "/members/%00", "/events?limit=-1"])
        method = "GET" if suffix in ("/members",) or "events" in suffix else "POST"
        if suffix == "/invites":
            return Hostile("POST", f"/v1/invites/{name}/accept", {"Content-Type": "application/json"}, b"{}")
        return Hostile(method, f"/v1/teams/{name}{suffix}", {"Content-Type": "application/json"}, b"{}")

    def odd_token_form(self) -> Hostile:
        form = {
            "grant_type": self.random.choice([DEVICE_GRANT, "password", "", "a" * 300]),
            "device_code": self.random.choice(["", "x", "a" * 5000, "%00", "\u00e9"]),
            "client_id": self.random.choice(["ltm-cli", "", "nope", "ltm-cli\u0000"]),
        }
        drop = self.random.choice([None, "grant_type", "device_code", "client_id"])
        form.pop(drop, None)
        body = urllib.parse.urlencode(form).encode()
        return Hostile(
            "POST", "/oauth/token", {"Content-Type": "application/x-www-form-urlencoded"}, body, who="nobody"
        )


def _first_decision(packet: dict) -> dict | None:
    """The packet's first decision, when an earlier mutation has left it an object."""
    decisions = packet.get("decisions")
    if isinstance(decisions, list) and decisions and isinstance(decisions[0], dict):
        return decisions[0]
    return None


def run(runner: Runner, count: int, seed: int) -> list[Result]:
    """Send `count` hostile requests; a Result for each that failed, or one that says none did."""
    requests = Generator(seed).requests(count)
    context = runner.context({"steps": []})
    failures = []
    try:
        # One at a time, in order: a replay then meets the server in the same states.
        for number, request in enumerate(requests, 1):
            exchange = _send(runner, request)
            runner.note_created(exchange, "alice" if request.who == "raw" else request.who, context)
            problem = _problem(exchange)
            if problem:
                failures.append(_failure(number, count, seed, exchange, problem))
    finally:
        runner.clean_up(context)
    if failures:
        return failures
    name = f"{count} hostile requests (seed {seed}): no 5xx, no answer slower than {HANG_SECONDS:.0f}s"
    return [Result("fuzz", name, "pass", _SPEC)]


_SPEC = {
    "section": "2. Conventions of the wire API",
    "quote": "Bad input is never a 500: malformed JSON, wrong types, oversized bodies, odd ids → 4xx with a message that says what was wrong.",
}


def _send(runner: Runner, request: Hostile) -> Exchange:
    headers = dict(request.headers)
    token = runner.tokens.get(request.who)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return send(runner.base + request.path, request.method, headers=headers, body=request.body, timeout=HANG_SECONDS)


def _problem(exchange: Exchange) -> str | None:
    if exchange.problem:
        return f"no answer within {HANG_SECONDS:.0f}s: {exchange.problem}"
    if exchange.status >= 500:
        return f"a server error: {exchange.status}"
    return None


def _failure(number: int, count: int, seed: int, exchange: Exchange, problem: str) -> Result:
    detail = "\n".join(
        [
            f"request {number} of {count}; replay with --fuzz {count} --seed {seed}",
            *("  " + line for line in exchange.request_text().splitlines()),
            "came back:",
            *("  " + line for line in exchange.answer_text().splitlines()),
            f"expected: any answer but a 5xx, within {HANG_SECONDS:.0f}s",
            f"  - {problem}",
        ]
    )
    return Result("fuzz", f"request {number}: {exchange.method} {exchange.url[:80]}", "fail", _SPEC, detail=detail)
