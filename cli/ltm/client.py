"""A small client for the hub's wire API (protocol README, sections 3 and 4), on urllib; the
device flow's calls (section 6) are in device.py.

Every failure becomes a HubRequestError whose message a person can act on, usually ending with
the command to run next.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field

from . import __version__
from .errors import HubRequestError
from .protocol import strict_json

USER_AGENT = f"ltm-hub-cli/{__version__} (python)"
INVITE_MARKER = "/v1/invites/"
STREAM_CHUNK = 64 * 1024


@dataclass
class Response:
    status: int
    headers: dict = field(default_factory=dict)
    body: bytes = b""

    def json(self):
        """The decoded body; None when it is not UTF-8 JSON, or nests deeper than any answer of
        a hub."""
        try:
            return strict_json.loads_loosely(self.body.decode("utf-8")) if self.body else {}
        except ValueError:
            return None


def normalize_host(host: str) -> str:
    """`hub.example.com` → `https://hub.example.com`; local addresses default to plain http."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        local = host.split(":")[0] in ("localhost", "127.0.0.1", "[::1]", "0.0.0.0")
        host = ("http://" if local else "https://") + host
    return host


def split_invite(url_or_code: str) -> tuple[str | None, str]:
    """An invite URL splits at /v1/invites/ into (hub base, code); a bare code has no base."""
    text = url_or_code.strip()
    if INVITE_MARKER not in text:
        return None, text.strip("/")
    base, code = text.split(INVITE_MARKER, 1)
    code = code.split("?")[0].strip("/")
    if code.endswith("/accept"):
        code = code[: -len("/accept")]
    return normalize_host(base), code


class Hub:
    """One hub at `host`, called with `token` as bearer when there is one."""

    def __init__(self, host: str, token: str | None = None, timeout: float = 30, source: str | None = None):
        self.host = normalize_host(host)
        self.token = token
        self.timeout = timeout
        self.source = source  # where the address came from, e.g. "set by LTM_HUB_URL", for messages

    # --- plumbing ---------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        auth: bool = True,
        timeout: float | None = None,
    ) -> Response:
        """Send one request; return the response of any status, raise only when none came."""
        request = urllib.request.Request(self.host + path, data=body, method=method)
        request.add_header("User-Agent", USER_AGENT)
        request.add_header("Accept", "application/json")
        if content_type:
            request.add_header("Content-Type", content_type)
        if auth and self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as reply:
                return Response(reply.status, dict(reply.headers.items()), reply.read())
        except urllib.error.HTTPError as reply:
            return Response(reply.code, dict(reply.headers.items()), reply.read())
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            where = f" ({self.source})" if self.source else ""
            raise HubRequestError(
                f"cannot reach {self.host} ({reason}); check the address {self.host}{where} and that the hub is running"
            ) from None

    def call(
        self,
        method: str,
        path: str,
        *,
        json_body=None,
        raw: bytes | None = None,
        auth: bool = True,
        expect: tuple[int, ...] = (200, 201, 204),
    ) -> Response:
        """A /v1 call: JSON in, JSON out, error bodies turned into HubRequestError."""
        if auth and not self.token:
            raise HubRequestError(f"not signed in; run `ltm auth {self.host}` first")
        body, content_type = raw, "application/json" if raw is not None else None
        if json_body is not None:
            body, content_type = json.dumps(json_body).encode("utf-8"), "application/json"
        response = self.request(method, path, body=body, content_type=content_type, auth=auth)
        if response.status not in expect:
            raise self._error(response)
        return response

    def _error(self, response: Response) -> HubRequestError:
        data = response.json()
        message = data.get("error") if isinstance(data, dict) else None
        status = response.status
        if status == 401:
            return HubRequestError(f"token rejected by {self.host}; run `ltm auth {self.host}`", status)
        if message is None:
            return HubRequestError(f"unexpected answer from {self.host} (HTTP {status}); is this an ltm hub?", status)
        if status >= 500:
            return HubRequestError(f"the hub failed (HTTP {status}): {message}; try again later", status)
        return HubRequestError(message, status, data)

    def _data(self, response: Response):
        data = response.json()
        if data is None:
            raise HubRequestError(f"unexpected answer from {self.host}: the body is not JSON", response.status)
        return data

    # --- wire API ---------------------------------------------------------------------

    def healthz(self) -> dict:
        return self._data(self.call("GET", "/v1/healthz", auth=False, expect=(200,)))

    def list_packets(self, limit: int | None = None, team: str | None = None) -> list[dict]:
        response = self.call("GET", "/v1/packets" + _query(limit=limit, team=team), expect=(200,))
        return list(self._data(response).get("packets") or [])

    def search(
        self, text: str, team: str | None = None, limit: int | None = None, mode: str | None = None
    ) -> list[dict]:
        response = self.call("GET", "/v1/search" + _query(q=text, team=team, limit=limit, mode=mode), expect=(200,))
        return list(self._data(response).get("results") or [])

    def related(self, packet_id: str, limit: int | None = None) -> list[dict]:
        """The packets nearest in meaning to one, best first (this hub's endpoint)."""
        response = self.call("GET", f"/v1/packets/{_segment(packet_id)}/related" + _query(limit=limit), expect=(200,))
        return list(self._data(response).get("results") or [])

    def get_packet(self, packet_id: str) -> Response:
        """The packet as served (body and X-LTM-* headers); the caller validates it."""
        return self.call("GET", f"/v1/packets/{_segment(packet_id)}", expect=(200,))

    def thread(self, packet_id: str) -> list[dict]:
        """The packet's thread as the caller may read it, oldest first (this hub's endpoint)."""
        response = self.call("GET", f"/v1/packets/{_segment(packet_id)}/thread", expect=(200,))
        return list(self._data(response).get("packets") or [])

    @contextmanager
    def export(self, format: str, team: str | None = None):
        """GET /v1/export as a stream: yields (number of packets or None, iterator of byte chunks)."""
        if not self.token:
            raise HubRequestError(f"not signed in; run `ltm auth {self.host}` first")
        request = urllib.request.Request(self.host + "/v1/export" + _query(format=format, team=team))
        request.add_header("User-Agent", USER_AGENT)
        request.add_header("Authorization", f"Bearer {self.token}")
        try:
            reply = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            raise self._error(Response(error.code, dict(error.headers.items()), error.read())) from None
        except (urllib.error.URLError, OSError) as exc:
            raise HubRequestError(f"cannot reach {self.host} ({getattr(exc, 'reason', exc)})") from None
        with reply:
            count = reply.headers.get("X-LTM-Export-Count")
            yield (int(count) if count and count.isdigit() else None), self._chunks(reply)

    def _chunks(self, reply):
        """The body a chunk at a time; a body cut short (the hub or the network failed midway) is
        an error, never a silently shorter export."""
        received = 0
        try:
            while chunk := reply.read(STREAM_CHUNK):
                received += len(chunk)
                yield chunk
            if reply.length:  # a Content-Length body that ended early (a chunked one raises)
                raise http.client.IncompleteRead(b"", reply.length)
        except (http.client.HTTPException, OSError) as exc:
            raise HubRequestError(
                f"the export from {self.host} broke off after {received:,} bytes ({exc.__class__.__name__}); "
                "run it again"
            ) from None

    def public_packet(self, path: str) -> Response:
        """A published packet's JSON (`<page>.json`), read with no account: no token is sent."""
        response = self.request("GET", path, auth=False)
        if response.status != 200:
            raise self._error(response)
        return response

    def delete_packet(self, packet_id: str) -> None:
        self.call("DELETE", f"/v1/packets/{_segment(packet_id)}", expect=(200, 204))

    def publish(self, packet_id: str) -> dict:
        # The Go client sends no body and no content type here; so do we.
        response = self.call("POST", f"/v1/packets/{_segment(packet_id)}/publish", expect=(200, 201))
        return self._data(response)

    def unpublish(self, packet_id: str) -> None:
        self.call("DELETE", f"/v1/packets/{_segment(packet_id)}/publish", expect=(200, 204))

    def create_team(self, name: str) -> dict:
        response = self.call("POST", "/v1/teams", json_body={"name": name}, expect=(200, 201))
        return self._data(response).get("team") or {}

    def list_teams(self) -> list[dict]:
        return list(self._data(self.call("GET", "/v1/teams", expect=(200,))).get("teams") or [])

    def delete_team(self, name: str) -> None:
        self.call("DELETE", f"/v1/teams/{_segment(name)}", expect=(200, 204))

    def team_members(self, name: str) -> list[dict]:
        response = self.call("GET", f"/v1/teams/{_segment(name)}/members", expect=(200,))
        return list(self._data(response).get("members") or [])

    def leave_team(self, name: str) -> None:
        self.call("POST", f"/v1/teams/{_segment(name)}/leave", json_body={}, expect=(200, 204))

    def remove_member(self, name: str, user_id: str) -> None:
        self.call("DELETE", f"/v1/teams/{_segment(name)}/members/{_segment(user_id)}", expect=(200, 204))

    def create_invite(self, team: str, email: str | None = None, label: str | None = None) -> dict:
        """A bare link (`{}`, as the Go client sends); `email` has this hub mail it, `label` notes
        who it is for (this hub's extensions)."""
        body = {key: value for key, value in (("email", email), ("label", label)) if value}
        response = self.call("POST", f"/v1/teams/{_segment(team)}/invites", json_body=body, expect=(200, 201))
        return self._data(response)

    def team_events(
        self, name: str, limit: int | None = None, before: int | None = None, kind: str | None = None
    ) -> dict:
        """A page of a team's activity log (this hub's extension): {"events", "next_before"}."""
        query = _query(limit=limit, before=before, kind=kind)
        return self._data(self.call("GET", f"/v1/teams/{_segment(name)}/events{query}", expect=(200,)))

    # --- team administration (this hub's extensions; the Go client calls none of them) ----------

    def set_role(self, name: str, user_id: str, role: str) -> dict:
        """Make a member an admin, or an admin a member (the owner only): the member, as listed."""
        path = f"/v1/teams/{_segment(name)}/members/{_segment(user_id)}/role"
        return self._data(self.call("POST", path, json_body={"role": role}))

    def offer_transfer(self, name: str, user_id: str) -> dict:
        """Offer the ownership to a member (the owner only): {"to": {"id", "display"}, "offered_at"}."""
        response = self.call("POST", f"/v1/teams/{_segment(name)}/transfer", json_body={"user_id": user_id})
        return self._data(response).get("transfer") or {}

    def cancel_transfer(self, name: str) -> None:
        """Withdraw (the owner) or decline (the member it was offered to) the pending offer."""
        self.call("DELETE", f"/v1/teams/{_segment(name)}/transfer", expect=(200, 204))

    def accept_transfer(self, name: str) -> dict:
        """Take the ownership offered to the caller: the team, as created."""
        response = self.call("POST", f"/v1/teams/{_segment(name)}/transfer/accept", json_body={})
        return self._data(response).get("team") or {}

    def list_invites(self, name: str) -> list[dict]:
        """The pending invites, newest first, without their codes (the hub keeps only hashes)."""
        response = self.call("GET", f"/v1/teams/{_segment(name)}/invites", expect=(200,))
        return list(self._data(response).get("invites") or [])

    def revoke_invite(self, name: str, invite_id: str) -> None:
        self.call("DELETE", f"/v1/teams/{_segment(name)}/invites/{_segment(invite_id)}", expect=(200, 204))

    def resend_invite(self, name: str, invite_id: str) -> dict:
        """Mail an invite by e-mail again, with a fresh link: the invite, as listed."""
        path = f"/v1/teams/{_segment(name)}/invites/{_segment(invite_id)}/resend"
        return self._data(self.call("POST", path, json_body={}))

    def accept_invite(self, code: str, display: str | None = None) -> dict:
        """Join with the stored bearer when there is one, else as a new user (who gets a token,
        and is named `display` when given; the Go client always sends `{}`)."""
        path = f"{INVITE_MARKER}{_segment(code)}/accept"
        body = {"display": display} if display else {}
        response = self.call("POST", path, json_body=body, auth=bool(self.token), expect=(200, 201))
        return self._data(response)

    def me(self) -> dict:
        """The signed-in account and its token (this hub's `GET /v1/me`; the Go client does not
        call it): id, username, display_name, email, token {kind, name, hint, scopes, ...}."""
        return self._data(self.call("GET", "/v1/me", expect=(200,)))

    def set_display_name(self, display_name: str) -> dict:
        """`PATCH /v1/me`: the name teammates see. The account, as `me` answers."""
        response = self.call("PATCH", "/v1/me", json_body={"display_name": display_name}, expect=(200,))
        return self._data(response)

    def claim_link(self) -> dict:
        """A one-time link where an account made by `ltm join` gets an email and a password
        (this hub's own endpoint; the Go client does not call it)."""
        response = self.call("POST", "/v1/account/claim-link", json_body={}, expect=(200, 201))
        return self._data(response)


def _segment(value: str) -> str:
    """A path segment, quoted so an odd id cannot walk to another endpoint."""
    return urllib.parse.quote(str(value), safe="")


def _query(**params) -> str:
    kept = {key: value for key, value in params.items() if value not in (None, "")}
    return "?" + urllib.parse.urlencode(kept) if kept else ""
