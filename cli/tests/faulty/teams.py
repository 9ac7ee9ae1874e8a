"""The faulty server's teams, invites and device flow."""

import json
import secrets

from .base import DEVICE_GRANT, TEAM_NAME, Fail


class Teams:
    """Mixed into Server, whose state (teams, invites, grants, faults) it reads."""

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
