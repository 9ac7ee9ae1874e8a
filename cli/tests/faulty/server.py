"""An ltm server in memory that follows the protocol, except for the faults it is given, served
on 127.0.0.1 by the standard library's http.server: what the conformance kit's own tests run it
against (test_conformance_faults.py), since no real hub breaks a rule on request."""

import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ltm.protocol.packet import MAX_PACKET_BYTES, packet_errors, parse_timestamp

from .base import AWS_KEY, REFUSED, TOKENS, Fail
from .extensions import Extensions
from .teams import Teams

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


class Server(Teams, Extensions):
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


def start(faults=(), scan="flag"):
    """A Server with `faults` (and its scan's policy) listening on a port of its own:
    (the HTTP server, to shut down; its base URL; the Server)."""
    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.ltm = Server(faults, scan)
    threading.Thread(target=http.serve_forever, args=(0.05,), daemon=True).start()
    return http, f"http://127.0.0.1:{http.server_address[1]}", http.ltm
