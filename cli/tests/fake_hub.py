"""An in-process stand-in for the hub's wire API (protocol README, section 3), for CLI tests.

It keeps packets, teams and invites in memory for one user per token, speaks the wire shapes of
the contract and records every request, so tests can check what the client sent.
"""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ltm.protocol.packet import PacketError, canonical_json, parse_packet


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict
    body: bytes


@dataclass
class FakeState:
    tokens: dict = field(default_factory=lambda: {"tok-alice": "alice"})
    packets: dict = field(default_factory=dict)  # id -> {"owner", "team", "body", "published"}
    order: list = field(default_factory=list)
    teams: dict = field(default_factory=dict)  # name -> {"id", "owner", "members": {user: role}}
    invites: dict = field(default_factory=dict)  # code -> team name, removed when used or revoked
    pending: dict = field(default_factory=dict)  # invite id -> {"team", "code", "by", "email"?, "label"?}
    displays: dict = field(default_factory=dict)  # user -> display name given when joining
    device_answers: list = field(default_factory=list)  # scripted answers of /oauth/token
    device_grant: dict = field(default_factory=dict)
    cancelled: list = field(default_factory=list)  # device codes the client cancelled
    has_me: bool = True  # False: a hub without GET /v1/me
    requests: list = field(default_factory=list)
    cut_export: bool = False  # GET /v1/export stops before the end of its body
    quarantined: dict = field(default_factory=dict)  # packet id -> the findings that hold it back


class FakeHub:
    def __init__(self):
        self.state = FakeState()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self.state))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def last(self, method: str, prefix: str) -> Recorded:
        matches = [r for r in self.state.requests if r.method == method and r.path.startswith(prefix)]
        assert matches, f"no {method} {prefix} request was made"
        return matches[-1]


def _handler_for(state: FakeState):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output quiet
            pass

        def _dispatch(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body))
            parsed = urllib.parse.urlsplit(self.path)
            query = dict(urllib.parse.parse_qsl(parsed.query))
            parts = [urllib.parse.unquote(p) for p in parsed.path.strip("/").split("/")]
            status, payload, headers = _route(state, self.command, parts, query, body, self.headers)
            data = payload if isinstance(payload, bytes) else (b"" if payload is None else json.dumps(payload).encode())
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            if data:
                self.send_header("Content-Type", "application/json")
            # An export cut short: announce more than is sent, then hang up.
            cut = state.cut_export and parsed.path == "/v1/export" and status == 200
            self.send_header("Content-Length", str(len(data) + (1000 if cut else 0)))
            self.close_connection = self.close_connection or cut
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = do_PATCH = _dispatch

    return Handler


def _route(state: FakeState, method, parts, query, body, headers):
    if parts[:1] == ["oauth"]:
        return _oauth(state, parts[1], body)
    if parts == ["v1", "healthz"]:
        return 200, {"ok": True, "version": "0.2"}, None
    if parts[:2] == ["v1", "invites"] and parts[-1] == "accept":
        return _accept(state, parts[2], _user(state, headers), json.loads(body or b"{}").get("display"))
    if parts[:1] == ["p"] and len(parts) == 2 and method == "GET":
        return _public(state, parts[1])
    user = _user(state, headers)
    if user is None:
        return 401, {"error": "invalid token"}, None
    if parts == ["v1", "export"] and method == "GET":
        return _export(state, user, query)
    if parts[:2] == ["v1", "packets"]:
        return _packets(state, user, method, parts[2:], query, body)
    if parts == ["v1", "search"]:
        return _search(state, user, query)
    if parts[:2] == ["v1", "teams"]:
        return _teams(state, user, method, parts[2:], body, f"http://{headers.get('Host')}")
    if parts == ["v1", "me"] and state.has_me:
        return _me(state, user, method, body, headers)
    return 404, {"error": "not found"}, None


def _me(state, user, method, body, headers):
    if method == "PATCH":
        name = json.loads(body or b"{}").get("display_name")
        if not isinstance(name, str) or len(name) > 80:
            return 400, {"error": "a display name is at most 80 characters"}, None
        state.displays[user] = name
    token = headers["Authorization"].removeprefix("Bearer ")
    return (
        200,
        {
            "id": user.upper(),
            "username": user,
            "display_name": state.displays.get(user) or user,
            "email": f"{user}@example.org",
            "token": {
                "kind": "personal",
                "name": "laptop",
                "hint": hashlib.sha256(token.encode()).hexdigest()[:8],
                "scopes": ["read", "write"],
                "created_at": "2026-01-01T00:00:00Z",
                "expires_at": None,
            },
        },
        None,
    )


def _user(state, headers):
    auth = headers.get("Authorization") or ""
    return state.tokens.get(auth.removeprefix("Bearer ")) if auth.startswith("Bearer ") else None


def _packets(state, user, method, rest, query, body):
    if not rest and method == "POST":
        team = query.get("team")
        if team and user not in state.teams.get(team, {}).get("members", {}):
            return 404, {"error": "team not found"}, None
        try:
            packet = parse_packet(body)
        except PacketError as exc:
            return 400, {"error": str(exc)}, None
        existing = state.packets.get(packet["id"])
        if existing and existing["owner"] != user:
            return 409, {"error": "id taken"}, None
        if existing and existing["team"] != team:  # as the hub: moving is not a push
            where = f"in team {existing['team']}" if existing["team"] else "one of your personal packets"
            return 409, {"error": f"packet {packet['id']} is {where}; push it there"}, None
        state.packets[packet["id"]] = {"owner": user, "team": team, "body": canonical_json(packet), "published": None}
        if packet["id"] in state.order:
            state.order.remove(packet["id"])
        state.order.insert(0, packet["id"])
        return 201, {"id": packet["id"]}, None
    if not rest and method == "GET":
        team = query.get("team")
        if team and user not in state.teams.get(team, {}).get("members", {}):
            return 404, {"error": "team not found"}, None
        limit = int(query["limit"]) if query.get("limit", "").isdigit() else 50
        visible = [pid for pid in state.order if _visible(state, user, pid, team)]
        listing = []
        for pid in visible[:limit]:
            packet = json.loads(state.packets[pid]["body"])
            listing.append({"id": pid, "created_at": packet["created_at"], "goal": packet["goal"]})
        return 200, {"packets": listing}, None
    record = state.packets.get(rest[0])
    if record is None or not (_visible(state, user, rest[0], record["team"])):
        return 404, {"error": "packet not found"}, None
    if len(rest) == 1 and method == "GET":
        headers = {}
        if record["published"]:
            headers = {"X-LTM-Published-At": "2026-04-22T10:00:00Z", "X-LTM-Public-URL": record["published"]}
        return 200, record["body"].encode(), headers
    if len(rest) == 1 and method == "DELETE":
        del state.packets[rest[0]]
        state.order.remove(rest[0])
        return 204, None, None
    if rest[1:] == ["thread"] and method == "GET":
        return 200, {"packets": _thread(state, user, rest[0])}, None
    if rest[1:] == ["publish"] and method == "POST" and rest[0] in state.quarantined:
        refusal = f"packet {rest[0]} cannot be published: the hub's secret scan found something"
        return 409, {"error": refusal, "findings": state.quarantined[rest[0]]}, None
    if rest[1:] == ["publish"] and method == "POST":
        record["published"] = f"http://hub.test/p/{rest[0]}"
        return 200, {"id": rest[0], "public_url": record["published"]}, None
    if rest[1:] == ["publish"] and method == "DELETE":
        record["published"] = None
        return 204, None, None
    return 404, {"error": "not found"}, None


def _readable(state, user, pid):
    record = state.packets.get(pid)
    return record is not None and _visible(state, user, pid, record["team"])


def _thread_item(state, pid):
    record = state.packets[pid]
    packet = json.loads(record["body"])
    return {
        "id": pid,
        "parent_id": packet.get("parent_id"),
        "created_at": packet["created_at"],
        "goal": packet["goal"],
        "team": record["team"],
    }


def _thread(state, user, pid):
    """As the hub: readable ancestors to the root, then every readable descendant, oldest first."""
    items = {pid: _thread_item(state, pid)}
    parent = items[pid]["parent_id"]
    while parent and parent not in items and _readable(state, user, parent):
        items[parent] = _thread_item(state, parent)
        parent = items[parent]["parent_id"]
    grown = True
    while grown:
        children = [
            other
            for other in state.packets
            if other not in items
            and _readable(state, user, other)
            and json.loads(state.packets[other]["body"]).get("parent_id") in items
        ]
        items.update((child, _thread_item(state, child)) for child in children)
        grown = bool(children)
    return sorted(items.values(), key=lambda item: (item["created_at"], item["id"]))


def _export(state, user, query):
    team = query.get("team")
    if team and user not in state.teams.get(team, {}).get("members", {}):
        return 404, {"error": "team not found"}, None
    if query.get("format", "jsonl") not in ("jsonl", "markdown"):
        return 400, {"error": "format must be one of jsonl, markdown"}, None
    chosen = [
        pid
        for pid in reversed(state.order)
        if (state.packets[pid]["team"] == team if team else _readable(state, user, pid))
    ]
    packets = [json.loads(state.packets[pid]["body"]) for pid in chosen]
    if query.get("format") == "markdown":
        text = "# ltm export\n" + "".join(f"\n---\n\n## {p['goal']}\n\n- Packet: `{p['id']}`\n" for p in packets)
    else:
        text = "".join(json.dumps(p, sort_keys=True, separators=(",", ":")) + "\n" for p in packets)
    return 200, text.encode(), {"X-LTM-Export-Count": str(len(packets))}


def _public(state, name):
    slug = name.removesuffix(".json")
    for record in state.packets.values():
        if name.endswith(".json") and record["published"] and record["published"].endswith(f"/p/{slug}"):
            return 200, record["body"].encode(), None
    return 404, {"error": "this link is no longer valid"}, None


def _search(state, user, query):
    """Every word of q in the packet's text, any case (the real hub ranks and stems)."""
    words, team = query.get("q", "").lower().split(), query.get("team")
    if not words:
        return 400, {"error": "q is required: the words to search for"}, None
    if team and user not in state.teams.get(team, {}).get("members", {}):
        return 404, {"error": "team not found"}, None
    results = []
    for pid in state.order:
        record = state.packets[pid]
        if not (_visible(state, user, pid, team) if team else _visible(state, user, pid, record["team"])):
            continue
        packet = json.loads(record["body"])
        if all(word in record["body"].lower() for word in words):
            results.append(
                {
                    "id": pid,
                    "created_at": packet["created_at"],
                    "goal": packet["goal"],
                    "team": record["team"],
                    "snippet": packet["next_step"],
                    "score": 0.5,
                }
            )
    limit = int(query["limit"]) if query.get("limit", "").isdigit() else 20
    return 200, {"results": results[:limit]}, None


def _visible(state, user, pid, team):
    record = state.packets[pid]
    if team:
        return record["team"] == team and user in state.teams.get(team, {}).get("members", {})
    return record["team"] is None and record["owner"] == user


def _teams(state, user, method, rest, body, base):
    if not rest and method == "POST":
        name = json.loads(body or b"{}").get("name", "")
        if name in state.teams:
            return 409, {"error": "team name taken"}, None
        state.teams[name] = {"id": f"TEAM{len(state.teams) + 1}", "owner": user, "members": {user: "owner"}}
        return 201, {"team": {"id": state.teams[name]["id"], "name": name, "owner_id": user}}, None
    if not rest and method == "GET":
        mine = [
            {"id": t["id"], "name": name, "owner_id": t["owner"], "created_at": "2026-04-22T00:00:00Z"}
            for name, t in state.teams.items()
            if user in t["members"]
        ]
        return 200, {"teams": mine}, None
    team = state.teams.get(rest[0])
    if team is None or user not in team["members"]:
        return 404, {"error": "team not found"}, None
    if len(rest) == 1 and method == "DELETE":
        if team["owner"] != user:
            return 403, {"error": "only the owner can delete a team"}, None
        del state.teams[rest[0]]
        return 204, None, None
    if rest[1:] == ["members"]:
        members = [
            {"user_id": u, "display": u.title(), "role": role, "joined_at": "2026-04-22T00:00:00Z"}
            for u, role in team["members"].items()
        ]
        return 200, {"members": members}, None
    if rest[1:] == ["leave"]:
        if team["owner"] == user:
            return 400, {"error": "the owner cannot leave the team"}, None
        del team["members"][user]
        return 204, None, None
    if rest[1:] == ["invites"] and method == "POST":
        code = f"code{len(state.invites) + len(state.pending) + 1:044d}"
        state.invites[code] = rest[0]
        asked = {key: value for key, value in json.loads(body or b"{}").items() if key in ("email", "label")}
        state.pending[f"INV{len(state.pending) + 1}"] = {"team": rest[0], "code": code, "by": user, **asked}
        return 201, {"code": code, "url": f"{base}/v1/invites/{code}", "expires_at": "2026-04-29T00:00:00Z"}, None
    return _team_admin(state, user, method, rest, body)


def _team_admin(state, user, method, rest, body):
    """This hub's extensions: roles, removing members, ownership transfers, pending invites."""
    team, role = state.teams[rest[0]], state.teams[rest[0]]["members"][user]
    if rest[1:] == ["invites"]:  # any member lists them
        return 200, {"invites": [_invite(i, p) for i, p in state.pending.items() if _usable(state, p, rest[0])]}, None
    if rest[1:] == ["transfer", "accept"] or (rest[1:] == ["transfer"] and method == "DELETE"):
        return _transfer_answer(team, rest[0], user, accept=method == "POST")
    if (rest[1:] == ["transfer"] or rest[3:] == ["role"]) and role != "owner":
        return 403, {"error": "only the team owner can do this"}, None
    if role not in ("owner", "admin"):
        return 403, {"error": "only the team owner or an admin can do this"}, None
    if rest[1] == "invites":
        return _invite_admin(state, method, rest[0], rest[2])
    target = rest[2] if len(rest) > 2 else json.loads(body or b"{}").get("user_id")
    if target not in team["members"]:
        return 404, {"error": "member not found"}, None
    if len(rest) == 3:  # DELETE .../members/{user_id}
        if team["members"][target] != "member" and role != "owner" or target == team["owner"]:
            return 403, {"error": "you cannot remove this member"}, None
        del team["members"][target]
        return 204, None, None
    if rest[1] == "transfer":
        team["transfer_to"] = target
        offer = {"to": {"id": target, "display": target.title()}, "offered_at": "2026-04-23T00:00:00Z"}
        return 200, {"transfer": offer}, None
    wanted = json.loads(body or b"{}").get("role")
    if wanted not in ("admin", "member"):
        return 400, {"error": 'role must be "admin" or "member" (ownership is transferred, not assigned)'}, None
    if target == team["owner"]:
        return 400, {"error": "the owner's role cannot change; transfer ownership instead"}, None
    team["members"][target] = wanted
    member = {"user_id": target, "display": target.title(), "role": wanted, "joined_at": "2026-04-22T00:00:00Z"}
    return 200, member, None


def _transfer_answer(team, name, user, accept):
    if team.get("transfer_to") is None:
        return 404, {"error": "no ownership transfer is pending"}, None
    if user != team["transfer_to"] and (accept or user != team["owner"]):
        return 403, {"error": "the ownership of this team was offered to someone else"}, None
    team["transfer_to"] = None
    if not accept:
        return 204, None, None
    team["members"][team["owner"]], team["members"][user], team["owner"] = "admin", "owner", user
    return 200, {"team": {"id": team["id"], "name": name, "owner_id": user}}, None


def _invite_admin(state, method, team, invite_id):
    invite = state.pending.get(invite_id)
    if invite is None or invite["team"] != team:
        return 404, {"error": "invite not found"}, None
    if method == "POST" and "email" not in invite:
        return 400, {"error": "this invite has no e-mail address; make a new invite to send one"}, None
    state.invites.pop(invite["code"], None)  # revoked, or its code replaced by a resend
    if method == "DELETE":
        return 204, None, None
    invite["code"] = f"code{len(state.invites) + len(state.pending) + 100:044d}"
    state.invites[invite["code"]] = team
    return 200, _invite(invite_id, invite), None


def _usable(state, invite, team):
    return invite["team"] == team and invite["code"] in state.invites


def _invite(invite_id, invite):
    shown = {key: invite[key] for key in ("email", "label") if key in invite}
    by = {"id": invite["by"], "display": invite["by"].title()}
    return {
        "id": invite_id,
        "created_by": by,
        "created_at": "2026-04-22T00:00:00Z",
        "expires_at": "2026-04-29T00:00:00Z",
        **shown,
    }


def _accept(state, code, user, display=None):
    team_name = state.invites.pop(code, None)
    if team_name is None:
        return 410, {"error": "invite expired or already consumed"}, None
    result = {"team": {"id": state.teams[team_name]["id"], "name": team_name}}
    if user is None:
        user = f"user{len(state.tokens) + 1}"
        token = f"tok-{user}"
        state.tokens[token] = user
        result["token"] = token
        state.displays[user] = display or user.title()
    state.teams[team_name]["members"].setdefault(user, "member")
    result["user"] = {"id": user.upper(), "display": state.displays.get(user, user.title())}
    return 201, result, None


def _oauth(state, endpoint, body):
    form = dict(urllib.parse.parse_qsl(body.decode()))
    if form.get("client_id") != "ltm-cli":
        return 401, {"error": "invalid_client"}, None
    if endpoint == "device":  # /oauth/device/cancel
        state.cancelled.append(form.get("device_code"))
        return 200, {"status": "cancelled"}, None
    if endpoint == "authorize_device":
        if form.get("scope") != "read write":
            return 400, {"error": "invalid_scope"}, None
        return 200, state.device_grant, None
    if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:device_code":
        return 400, {"error": "unsupported_grant_type"}, None
    status, answer = state.device_answers.pop(0)
    return status, answer, None
