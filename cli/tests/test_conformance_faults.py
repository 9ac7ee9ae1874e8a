"""The conformance runner against a small ltm server of the test's own (stdlib http.server on
127.0.0.1): it passes every check when it follows the protocol, and each group fails when the
server breaks that group's rule."""

import html
import json
import re
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ltm.conformance import fuzz, vectors
from ltm.conformance.runner import Runner
from ltm.main import main
from ltm.protocol.packet import MAX_PACKET_BYTES, packet_errors, parse_timestamp

TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}
TEAM_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
AWS_KEY = re.compile(r"AKIA[A-Z0-9]{16}")  # the one kind of secret this server's scan knows
REFUSED = "the packet looks like it carries secrets"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

# One fault per group: the rule the server breaks, and the group that must notice.
FAULTS = {
    "health": "healthz says version 0.1",
    "packets": "a pull adds a server field to the packet",
    "validation": "a created_at without a zone is accepted",
    "identity": "anyone may overwrite any id",
    "not-found": "another account's packet answers 403",
    "auth": "an unknown token answers 403",
    "teams": "an invite can be accepted twice",
    "publish": "the public page stays after unpublish",
    "device-flow": "polling too fast never answers slow_down",
    "list": "the list is oldest first",
    "search": "search shows other accounts' packets",
    "threads": "a thread is newest first",
    "shares": "a withdrawn share still lets the recipient read",
    "findings": "a flagged packet can be published",
}


class Fail(Exception):
    def __init__(self, status, message, **extra):
        self.status, self.message, self.extra = status, message, extra


class Server:
    """An ltm server in memory that follows the protocol, except for the faults it is given."""

    def __init__(self, faults=(), scan="flag"):
        self.faults = set(faults)
        self.scan = scan  # the secret scan's policy: flag or refuse
        self.packets = {}  # id -> {"owner", "team", "packet", "public", "findings", "cleared"}
        self.teams = {}  # name -> {"id", "owner", "members": {user: joined_at}, "scan"}
        self.shares = {}  # id -> {"packet", "from", "to", "note", "seen"}
        self.invites = {}  # code -> team name; removed once used
        self.grants = {}  # device_code -> {"polled": count}
        self.lock = threading.Lock()

    # --- HTTP ----------------------------------------------------------------------------

    def answer(self, method, target, headers, body, base):
        url = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        parts = [urllib.parse.unquote(part) for part in url.path.strip("/").split("/")]
        try:
            with self.lock:
                return self.route(method, parts, query, headers, body, base)
        except Fail as failure:
            return failure.status, {"error": failure.message, **failure.extra}, {}
        except (LookupError, TypeError, ValueError, AttributeError, RecursionError):  # the fuzz's odd input
            return 400, {"error": "bad request"}, {}

    def route(self, method, parts, query, headers, body, base):
        if parts == ["v1", "healthz"]:
            return 200, {"ok": True, "version": "0.1" if "health" in self.faults else "0.2"}, {}
        if parts[0] == "p" and len(parts) == 2 and method == "GET":
            return self.public_page(parts[1])
        if parts[0] == "oauth":
            return self.oauth(parts[1:], dict(urllib.parse.parse_qsl(body.decode())))
        user = self.caller(headers.get("Authorization"))
        if parts[:2] == ["v1", "packets"]:
            return self.packet_route(user, method, parts[2:], query, body, base)
        if parts[:2] == ["v1", "teams"]:
            return self.team_route(user, method, parts[2:], body, base)
        if parts[:2] == ["v1", "invites"] and parts[3:] == ["accept"] and method == "POST":
            return self.accept(user, parts[2])
        if parts == ["v1", "search"]:
            return self.search(user, query)
        if parts == ["v1", "me"] and method == "GET":
            return 200, {"id": user, "username": user, "display_name": user.title()}, {}
        if parts[:2] == ["v1", "shares"]:
            return self.share_route(user, method, parts[2:])
        raise Fail(404, "not found")

    def caller(self, header):
        if not header:
            raise Fail(401, "missing bearer token")
        scheme, _, token = header.partition(" ")
        if scheme != "Bearer" or not token.strip():
            raise Fail(401, "missing bearer token")
        if token not in TOKENS:
            raise Fail(403, "forbidden") if "auth" in self.faults else Fail(401, "invalid token")
        return TOKENS[token]

    # --- packets -------------------------------------------------------------------------

    def packet_route(self, user, method, rest, query, body, base):
        if not rest and method == "POST":
            return self.push(user, body, self.team_of(user, query.get("team")))
        if not rest and method == "GET":
            return self.listing(user, query)
        if rest[1:] == [] and method == "GET":
            record = self.readable(user, rest[0])
            for share in self.shares.values():  # the recipient's pull marks it seen
                if share["packet"] == rest[0] and share["to"] == user:
                    share["seen"] = True
            served = (
                {**record["packet"], "received_at": "2026-04-22T10:00:00Z"}
                if "packets" in self.faults
                else record["packet"]
            )
            return 200, served, self.published_headers(record, base)
        if rest[1:] == ["thread"] and method == "GET":
            self.readable(user, rest[0])
            return 200, {"packets": self.thread(user, rest[0])}, {}
        if rest[1:] == ["findings"] and method == "GET":
            return 200, {"findings": self.findings(self.readable(user, rest[0]))}, {}
        if rest[1:] == ["shares"] and method == "POST":
            return self.share(user, rest[0], json.loads(body))
        record = self.changeable(user, rest[0])
        if rest[1:] == [] and method == "DELETE":
            del self.packets[rest[0]]
            self.shares = {sid: s for sid, s in self.shares.items() if s["packet"] != rest[0]}
            return 204, None, {}
        if rest[1:] == ["findings", "clear"] and method == "POST":
            reason = json.loads(body).get("reason")
            if not isinstance(reason, str) or not reason.strip():
                raise Fail(400, "reason is required")
            record["cleared"] = {"by": {"id": user, "display": user.title()}, "reason": reason}
            return 200, {"findings": self.findings(record)}, {}
        if rest[1:] == ["publish"] and method == "POST":
            self.refuse_quarantined(record, "published", fault="findings")
            record["public"] = secrets.token_hex(8)
            return 200, {"id": rest[0], "public_url": f"{base}/p/{record['public']}"}, {}
        if rest[1:] == ["publish"] and method == "DELETE":
            if "publish" not in self.faults:
                record["public"] = None
            return 204, None, {}
        raise Fail(405, "method not allowed")

    def push(self, user, body, team):
        if len(body) > MAX_PACKET_BYTES:
            raise Fail(400, "packet too large")
        try:
            packet = json.loads(body.decode("utf-8"))
        except ValueError:
            raise Fail(400, "invalid JSON") from None
        errors = packet_errors(packet)
        if "validation" in self.faults:
            errors = [error for error in errors if "created_at" not in error]
        if errors:
            raise Fail(400, errors[0])
        found = [{"path": key, "kind": "aws-access-key"} for key, value in packet.items() if AWS_KEY.search(str(value))]
        if found and "refuse" in (self.scan, team and self.teams[team]["scan"]):
            raise Fail(422, REFUSED, findings=found)
        existing = self.packets.get(packet["id"])
        if existing and "identity" not in self.faults:
            if self.shared_with(user, packet["id"]):
                raise Fail(403, "shared with you to read")
            if existing["owner"] != user:
                raise Fail(409, "this id is taken")
            if existing["team"] != team:
                raise Fail(409, "this packet is in another place")
        self.packets[packet["id"]] = {
            "owner": user,
            "team": team,
            "packet": packet,
            "public": None,
            "findings": found,
            "cleared": None,
        }
        return 201, {"id": packet["id"], **({"findings": found} if found else {})}, {}

    def listing(self, user, query):
        team = self.team_of(user, query.get("team"))
        limit = query.get("limit", "")
        limit = int(limit) if limit.isdigit() and 1 <= int(limit) <= 500 else 50
        rows = [(pid, r["packet"]) for pid, r in self.packets.items() if self.in_scope(user, r, team)]
        rows.sort(key=lambda row: (parse_timestamp(row[1]["created_at"]), row[0]), reverse="list" not in self.faults)
        return (
            200,
            {"packets": [{"id": pid, "created_at": p["created_at"], "goal": p["goal"]} for pid, p in rows][:limit]},
            {},
        )

    def in_scope(self, user, record, team):
        return record["team"] == team and (team is not None or record["owner"] == user)

    def can_read(self, user, record):
        if self.shared_with(user, record["packet"]["id"]):
            return True
        if record["team"] is None:
            return record["owner"] == user
        return user in self.teams[record["team"]]["members"]

    def readable(self, user, pid):
        record = self.packets.get(pid)
        if record is None or not self.can_read(user, record):
            if record is not None and "not-found" in self.faults:
                raise Fail(403, "not yours")
            raise Fail(404, "packet not found")
        return record

    def changeable(self, user, pid):
        record = self.packets.get(pid)
        team = record and record["team"] and self.teams[record["team"]]
        if record and (record["owner"] == user or (team and team["owner"] == user)):
            return record
        return self.readable(user, pid) and self.forbidden()

    def forbidden(self):
        raise Fail(403, "only the creator or the team owner may do this")

    # --- the secret scan's findings and shares (this hub's extensions) ---------------------

    def findings(self, record):
        cleared = record["cleared"] or {"by": None, "reason": ""}
        at = "2026-04-22T11:00:00Z" if record["cleared"] else None
        return [
            {
                **f,
                "created_at": "2026-04-22T10:00:00Z",
                "cleared_by": cleared["by"],
                "cleared_at": at,
                "reason": cleared["reason"],
            }
            for f in record["findings"]
        ]

    def refuse_quarantined(self, record, doing, fault=None):
        if record["findings"] and not record["cleared"] and fault not in self.faults:
            raise Fail(409, f"cannot be {doing}: the secret scan found something", findings=record["findings"])

    def shared_with(self, user, pid):
        return any(share["packet"] == pid and share["to"] == user for share in self.shares.values())

    def share(self, user, pid, asked):
        record = self.readable(user, pid)
        if record["owner"] != user:
            self.forbidden()
        self.refuse_quarantined(record, "shared")
        to = asked.get("to")
        if to not in TOKENS.values():
            raise Fail(404, "no such user")
        if to == user:
            raise Fail(400, "you cannot share a packet with yourself")
        for sid, share in self.shares.items():
            if (share["packet"], share["from"], share["to"]) == (pid, user, to):
                share["note"] = asked.get("note", "")
                return 200, {"share": self.share_answer(sid)}, {}
        sid = secrets.token_hex(13)
        self.shares[sid] = {"packet": pid, "from": user, "to": to, "note": asked.get("note", ""), "seen": False}
        return 201, {"share": self.share_answer(sid)}, {}

    def share_answer(self, sid):
        share = self.shares[sid]
        return {
            "id": sid,
            "packet_id": share["packet"],
            "goal": self.packets[share["packet"]]["packet"]["goal"],
            "from": {"id": share["from"], "display": share["from"].title()},
            "to": {"id": share["to"], "display": share["to"].title()},
            "note": share["note"],
            "created_at": "2026-04-22T10:00:00Z",
        }

    def share_route(self, user, method, rest):
        if not rest and method == "GET":
            inbox = [sid for sid, share in self.shares.items() if share["to"] == user]
            return 200, {"shares": [{**self.share_answer(sid), "seen": self.shares[sid]["seen"]} for sid in inbox]}, {}
        share = self.shares.get(rest[0]) if len(rest) == 1 and method == "DELETE" else None
        if share is None or user not in (share["from"], share["to"]):
            raise Fail(404, "share not found")
        if "shares" not in self.faults:
            del self.shares[rest[0]]
        return 204, None, {}

    def published_headers(self, record, base):
        if not record["public"]:
            return {}
        return {"X-LTM-Published-At": "2026-04-22T10:00:00Z", "X-LTM-Public-URL": f"{base}/p/{record['public']}"}

    def public_page(self, slug):
        for record in self.packets.values():
            if record["public"] == slug:
                return 200, f"<h1>{html.escape(record['packet']['goal'])}</h1>".encode(), {}
        raise Fail(404, "no such page")

    def thread(self, user, pid):
        readable = {i: r["packet"] for i, r in self.packets.items() if self.can_read(user, r)}
        root = pid
        while readable[root].get("parent_id") in readable:
            root = readable[root]["parent_id"]
        members, grown = {root}, True
        while grown:
            children = {i for i, p in readable.items() if p.get("parent_id") in members} - members
            members |= children
            grown = bool(children)
        items = [
            {
                "id": i,
                "parent_id": readable[i].get("parent_id"),
                "created_at": readable[i]["created_at"],
                "goal": readable[i]["goal"],
                "team": self.packets[i]["team"],
            }
            for i in members
        ]
        items.sort(key=lambda item: (parse_timestamp(item["created_at"]), item["id"]), reverse="threads" in self.faults)
        return items

    def search(self, user, query):
        text, limit = query.get("q", "").strip(), query.get("limit", "20")
        if not text or len(text) > 1000 or not limit.isdigit() or not 1 <= int(limit) <= 100:
            raise Fail(400, "q is 1 to 1,000 characters and limit 1 to 100")
        team = self.team_of(user, query.get("team"))
        results = []
        for pid, record in self.packets.items():
            visible = "search" in self.faults or self.can_read(user, record)
            if (
                visible
                and (team is None or record["team"] == team)
                and (text in record["packet"]["goal"] or text == pid)
            ):
                packet = record["packet"]
                results.append(
                    {
                        "id": pid,
                        "created_at": packet["created_at"],
                        "goal": packet["goal"],
                        "team": record["team"],
                        "snippet": packet["goal"],
                        "score": 1.0,
                    }
                )
        return 200, {"results": results[: int(limit)]}, {}

    # --- teams ---------------------------------------------------------------------------

    def team_of(self, user, name):
        if name is None:
            return None
        if name not in self.teams or user not in self.teams[name]["members"]:
            raise Fail(404, "team not found")
        return name

    def team_route(self, user, method, rest, body, base):
        if not rest and method == "GET":
            mine = [
                {"id": t["id"], "name": n, "owner_id": t["owner"], "created_at": "2026-04-22T00:00:00Z"}
                for n, t in self.teams.items()
                if user in t["members"]
            ]
            return 200, {"teams": mine}, {}
        if not rest and method == "POST":
            return self.create_team(user, json.loads(body))
        team = self.teams[self.team_of(user, rest[0])]
        if rest[1:] == [] and method == "PATCH":
            if team["owner"] != user:
                self.forbidden()
            team["scan"] = json.loads(body)["secret_scan"]
            return 200, {"team": {"id": team["id"], "name": rest[0], "secret_scan": team["scan"]}}, {}
        if rest[1:] == [] and method == "DELETE":
            if team["owner"] != user:
                self.forbidden()
            for pid in [pid for pid, r in self.packets.items() if r["team"] == rest[0]]:
                del self.packets[pid]
                self.shares = {sid: s for sid, s in self.shares.items() if s["packet"] != pid}
            del self.teams[rest[0]]
            return 204, None, {}
        if rest[1:] == ["members"] and method == "GET":
            members = [
                {
                    "user_id": u,
                    "display": u.title(),
                    "role": "owner" if u == team["owner"] else "member",
                    "joined_at": "2026-04-22T00:00:00Z",
                }
                for u in team["members"]
            ]
            return 200, {"members": members}, {}
        if rest[1:] == ["leave"] and method == "POST":
            if team["owner"] == user:
                raise Fail(400, "the owner cannot leave")
            team["members"].discard(user)
            return 204, None, {}
        if rest[1:] == ["invites"] and method == "POST":
            code = secrets.token_hex(24)
            self.invites[code] = rest[0]
            return 201, {"code": code, "url": f"{base}/v1/invites/{code}", "expires_at": "2026-04-29T00:00:00Z"}, {}
        if rest[1:2] == ["members"] and len(rest) == 3 and method == "DELETE":
            if team["owner"] != user:
                self.forbidden()
            if rest[2] == team["owner"]:
                raise Fail(400, "the owner cannot be removed")
            if rest[2] not in team["members"]:
                raise Fail(404, "not a member")
            team["members"].discard(rest[2])
            return 204, None, {}
        raise Fail(405, "method not allowed")

    def create_team(self, user, asked):
        name = asked.get("name") if isinstance(asked, dict) else None
        if not isinstance(name, str) or not TEAM_NAME.fullmatch(name):
            raise Fail(400, "a team name is 1 to 40 of a-z, 0-9, - and _")
        if name in self.teams:
            raise Fail(409, "team name taken")
        self.teams[name] = {"id": f"T-{name}", "owner": user, "members": {user}, "scan": None}
        return 201, {"team": {"id": f"T-{name}", "name": name, "owner_id": user}}, {}

    def accept(self, user, code):
        name = self.invites.get(code) if "teams" in self.faults else self.invites.pop(code, None)
        if name is None or name not in self.teams:
            raise Fail(410, "invite expired or already consumed")
        self.teams[name]["members"].add(user)
        return (
            201,
            {"user": {"id": user, "display": user.title()}, "team": {"id": self.teams[name]["id"], "name": name}},
            {},
        )

    # --- the device flow -----------------------------------------------------------------

    def oauth(self, rest, form):
        if rest == ["authorize_device"]:
            code = secrets.token_hex(16)
            self.grants[code] = {"polled": 0}
            return (
                200,
                {
                    "device_code": code,
                    "user_code": "BCDFGHJK",
                    "verification_uri": "http://127.0.0.1/device",
                    "expires_in": 600,
                    "interval": 1,
                },
                {},
            )
        if rest == ["token"]:
            if form.get("client_id") != "ltm-cli":
                return 401, {"error": "invalid_client"}, {}
            grant = self.grants.get(form.get("device_code"))
            if form.get("grant_type") != DEVICE_GRANT or grant is None:
                return 400, {"error": "invalid_grant"}, {}
            grant["polled"] += 1
            too_fast = grant["polled"] > 1 and "device-flow" not in self.faults
            return 400, {"error": "slow_down" if too_fast else "authorization_pending"}, {}
        raise Fail(404, "not found")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle_one(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        base = f"http://{self.headers['Host']}"
        status, payload, headers = self.server.ltm.answer(self.command, self.path, self.headers, body, base)
        data = payload if isinstance(payload, bytes) else b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Type", "text/html" if isinstance(payload, bytes) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_HEAD = do_POST = do_DELETE = do_PUT = do_PATCH = do_OPTIONS = handle_one


@pytest.fixture
def serve():
    """Start a Server with the given faults; yields a function (faults) -> base URL."""
    started = []

    def start(faults=(), scan="flag"):
        http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        http.ltm = Server(faults, scan)
        threading.Thread(target=http.serve_forever, args=(0.05,), daemon=True).start()
        started.append(http)
        return f"http://127.0.0.1:{http.server_address[1]}", http.ltm

    yield start
    for http in started:
        http.shutdown()
        http.server_close()


def _outcomes(base, only=None):
    runner = Runner(base, "tok-alice", "tok-bob")
    groups = [group for group in vectors.groups() if only is None or group["group"] == only]
    return runner, runner.run(groups)


def test_a_server_that_follows_the_protocol_passes_every_check(serve):
    base, server = serve()
    runner, results = _outcomes(base)
    failed = [f"{r.group}: {r.name}\n{r.detail}" for r in results if r.outcome == "fail"]
    assert failed == []
    assert {r.name for r in results if r.outcome == "skip"} == {
        "a code the person denied: access_denied",
        "a code polled after expires_in: expired_token",
        "an approved code gives an access token that reads /v1",
        "a hub that refuses: 422 with the findings, and nothing stored",  # this server flags
    }
    # Every packet, team and share the checks made is gone again.
    assert server.packets == {} and server.teams == {} and server.shares == {}
    assert runner.leftovers == []


@pytest.mark.parametrize("group", FAULTS)
def test_each_group_catches_its_fault(serve, group):
    base, _ = serve({group})
    _, results = _outcomes(base, only=group)
    failed = [result for result in results if result.outcome == "fail"]
    assert failed, f"no check of {group} noticed: {FAULTS[group]}"
    assert all(result.group == group for result in failed)


def test_a_server_that_refuses_secrets_skips_the_flag_checks_with_its_422(serve):
    base, server = serve(scan="refuse")
    _, results = _outcomes(base, only="findings")
    outcomes = {result.name: result for result in results}
    assert [r.name for r in results if r.outcome == "fail"] == []
    assert outcomes["a hub that refuses: 422 with the findings, and nothing stored"].outcome == "pass"
    skipped = [result for result in results if result.outcome == "skip"]
    assert len(skipped) == 4
    assert all("does not offer a secret scan that flags" in r.detail and "status 422" in r.detail for r in skipped)
    assert server.packets == {}


@pytest.mark.parametrize(
    ("group", "absent"),
    [
        # A server without shares answers 404 on its routes, as it does for an unknown user.
        ("shares", lambda parts: "shares" in parts or parts == ["v1", "me"]),
        ("findings", lambda parts: "findings" in parts),
    ],
)
def test_an_extension_the_server_lacks_is_skipped_not_failed(serve, group, absent):
    base, server = serve()
    server.route = lambda method, parts, *rest: (
        (404, {"error": "not found"}, {}) if absent(parts) else Server.route(server, method, parts, *rest)
    )
    _, results = _outcomes(base, only=group)
    assert {result.outcome for result in results} == {"skip"}
    assert all("the server does not offer" in result.detail for result in results)
    assert server.packets == {}


def test_without_a_second_token_the_checks_between_accounts_skip_and_say_why(serve):
    base, _ = serve()
    results = Runner(base, "tok-alice").run([group for group in vectors.groups() if group["group"] == "not-found"])
    skipped = [result for result in results if result.outcome == "skip"]
    assert skipped and all("pass --token2" in result.detail for result in skipped)


def test_a_capability_the_server_lacks_is_skipped_with_its_own_answer(serve):
    base, server = serve()
    server.route = lambda method, parts, *rest: (
        (404, {"error": "not found"}, {})
        if parts[:2] == ["v1", "teams"]
        else Server.route(server, method, parts, *rest)
    )
    results = Runner(base, "tok-alice", "tok-bob").run(
        [group for group in vectors.groups() if group["group"] == "teams"]
    )
    assert {result.outcome for result in results} == {"skip"}
    assert "the server does not offer teams" in results[0].detail and "status 404, expected 200" in results[0].detail


def test_the_command_reports_a_failure_in_full_and_exits_1(serve, capsys):
    base, _ = serve({"identity"})
    code = main(["conformance", base, "--token", "tok-alice", "--token2", "tok-bob", "--only", "identity"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  identity: another account cannot overwrite a packet" in out
    assert '"Pushing an `id` that already exists' in out  # the SPEC sentence it enforces
    assert "POST http" in out and "came back:" in out and "status 201, expected 4xx" in out
    assert re.search(r"conformance of .*: \d+ passed, [1-9]\d* failed", out.splitlines()[-1])


def test_the_command_writes_junit_and_json_and_exits_0_when_all_pass(serve, tmp_path, capsys):
    base, _ = serve()
    junit, as_json = tmp_path / "report.xml", tmp_path / "report.json"
    argv = ["conformance", base, "--token", "tok-alice", "--token2", "tok-bob", "--only", "health,auth"]
    assert main([*argv, "--format", "junit", "-o", str(junit)]) == 0
    assert main([*argv, "--format", "json", "-o", str(as_json)]) == 0
    assert '<testsuite name="health" tests="2" failures="0" skipped="0">' in junit.read_text()
    document = json.loads(as_json.read_text())
    assert {check["group"] for check in document["checks"]} == {"health", "auth"}
    assert document["counts"] == {"pass": len(document["checks"])}


def test_an_unknown_group_is_a_usage_error(capsys):
    assert main(["conformance", "http://127.0.0.1:9", "--token", "t", "--only", "nope"]) == 2
    assert "no group nope; the groups are:" in capsys.readouterr().err


def test_the_help_explains_the_kit_to_a_server_author(capsys):
    assert main(["conformance", "--help"]) == 0
    text = capsys.readouterr().out
    for words in ("--token2", "--fuzz N", "--seed", "quotes the sentence", "exit code is 0", "groups, in the order"):
        assert words in text


def test_the_fuzz_reports_a_5xx_with_its_seed_and_finds_nothing_on_a_sound_server(serve):
    base, server = serve()
    assert [r.outcome for r in fuzz.run(Runner(base, "tok-alice"), 150, seed=5)] == ["pass"]
    assert server.packets == {} and server.teams == {}
    original = server.route

    def crash_on_teams(method, parts, *rest):
        if parts[:2] == ["v1", "teams"]:
            return 500, {"error": "boom"}, {}
        return original(method, parts, *rest)

    server.route = crash_on_teams
    failures = fuzz.run(Runner(base, "tok-alice"), 150, seed=5)
    assert failures and all(r.outcome == "fail" for r in failures)
    assert "replay with --fuzz 150 --seed 5" in failures[0].detail and "a server error: 500" in failures[0].detail


def test_the_same_seed_sends_the_same_requests():
    first, again = fuzz.Generator(9).requests(50), fuzz.Generator(9).requests(50)
    assert first == again
    assert first != fuzz.Generator(10).requests(50)
