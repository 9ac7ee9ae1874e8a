"""The faulty server's answers to this hub's extensions: the secret scan's findings, shares, public
pages, threads and search."""

import html
import secrets

from ltm.protocol.packet import parse_timestamp

from .base import TOKENS, Fail


class Extensions:
    """Mixed into Server, whose state (packets, shares, faults) it reads."""

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
