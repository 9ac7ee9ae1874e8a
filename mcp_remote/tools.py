"""The hub's side of the MCP tools: who calls, the scope and rate checks, and the backend that
reads and writes through the same services and selectors as the /v1 views. What each tool
answers (its arguments, redaction pre-flight and text) is ltm.protocol.tool_calls, shared with
`ltm mcp`; the names, descriptions, schemas and scopes are ltm.protocol.tools.

`run_tool` is plain synchronous Django (the ORM, transactions): mcp_remote.server calls it from
the SDK's event loop on the request's own thread. Every outcome is text for the agent; a refusal
or a failure is a tool error carrying the hub's message, never an HTTP error.
"""

import json
import logging
from dataclasses import dataclass

from allauth.core import ratelimit
from django.http import HttpRequest

from accounts.authentication import SCOPE_REFUSED
from accounts.models import User
from core.errors import HubError, Unprocessable
from core.links import hub_url
from core.timestamps import rfc3339
from ltm.protocol import tool_calls
from ltm.protocol import tools as specs
from ltm.protocol.tokens import token_checksum, token_identity
from packets import selectors, services
from packets.publishing.selectors import public_url
from packets.publishing.services import packet_publish, packet_unpublish
from packets.search.selectors import DEFAULT_LIMIT as SEARCH_DEFAULT_LIMIT
from packets.search.selectors import search_packets
from packets.serializers import ThreadItemSerializer
from packets.sharing.selectors import DEFAULT_LIMIT as SHARES_DEFAULT_LIMIT
from packets.sharing.selectors import shares_list
from packets.sharing.serializers import ShareListItemSerializer, ShareSerializer
from packets.sharing.services import packet_page_link, share_create
from teams.selectors import team_get_for_member

log = logging.getLogger(__name__)

FAILED = "the hub could not do this just now; try again in a minute"
RATE_LIMITED = "too many tool calls with this token; wait a minute and call again"


@dataclass(frozen=True)
class Caller:
    """Who calls, as /mcp authenticated them."""

    user: User
    scopes: frozenset
    token: str  # the bearer's plaintext: whoami shows its fingerprint, the rate limit counts by it
    request: HttpRequest


def offered() -> list[specs.ToolSpec]:
    return list(specs.TOOLS.values())


def run_tool(caller: Caller, name: str, arguments) -> tuple[str, bool]:
    """(text, is_error) of one call."""
    try:
        spec, arguments = tool_calls.checked(specs.TOOLS, name, arguments)
    except tool_calls.ToolError as refusal:
        return str(refusal), True
    if spec.scope not in caller.scopes:
        return SCOPE_REFUSED[spec.scope], True
    if not ratelimit.consume(caller.request, action="mcp_tool_call", key=token_checksum(caller.token)):
        return RATE_LIMITED, True
    try:
        return tool_calls.answer(HubBackend(caller), name, arguments), False
    except (HubError, tool_calls.ToolError) as refusal:
        return str(refusal), True
    except Exception:  # a database outage, a bug: the agent hears it failed, the log has why
        log.exception("MCP tool %s failed", name)
        return FAILED, True


@dataclass(frozen=True)
class HubBackend:
    """The tools' reads and writes (see ltm.protocol.tool_calls.Backend), as the caller."""

    caller: Caller

    @property
    def user(self) -> User:
        return self.caller.user

    def push(self, packet: dict, team: str | None) -> tuple[str, str, list[dict]]:
        scope = team_get_for_member(viewer=self.user, name=team) if team else None
        try:
            stored = services.packet_push(actor=self.user, packet=packet, team=scope)
        except Unprocessable as refusal:  # the secret scan's refusal: its findings tell the agent what to fix
            raise tool_calls.ToolError(specs.secrets_refused_message(refusal.extra["findings"])) from None
        return hub_url(self.caller.request), stored.id, stored.findings

    def packet(self, packet_id: str) -> dict:
        return json.loads(self.pull(packet_id))

    def pull(self, packet_id: str) -> str:
        return services.packet_read(viewer=self.user, packet_id=packet_id).body

    def show(self, packet_id: str):
        packet = services.packet_read(viewer=self.user, packet_id=packet_id)
        if not packet.public_slug:
            return json.loads(packet.body), None, None
        return (
            json.loads(packet.body),
            public_url(self.caller.request, packet),
            rfc3339(packet.published_at),
        )

    def thread(self, packet_id: str) -> list[dict]:
        items = selectors.packet_thread(viewer=self.user, packet_id=packet_id)
        return ThreadItemSerializer(items, many=True).data

    def search(self, q: str, team: str | None, limit: int | None, mode: str = "hybrid") -> list[dict]:
        hits = search_packets(viewer=self.user, text=q, team_name=team, limit=limit or SEARCH_DEFAULT_LIMIT, mode=mode)
        return [hit.result() for hit in hits]

    def packets(self, limit: int | None, team: str | None) -> list[dict]:
        packets = selectors.packet_list(viewer=self.user, team_name=team, limit=limit or selectors.DEFAULT_LIMIT)
        return [packet.wire() for packet in packets]  # the lines of GET /v1/packets

    def delete(self, packet_id: str) -> None:
        services.packet_delete(actor=self.user, packet_id=packet_id)

    def publish(self, packet_id: str) -> str:
        return public_url(self.caller.request, packet_publish(actor=self.user, packet_id=packet_id))

    def unpublish(self, packet_id: str) -> None:
        packet_unpublish(actor=self.user, packet_id=packet_id)

    def share(self, packet_id: str, to: str, note: str | None) -> tuple[dict, bool]:
        link = packet_page_link(self.caller.request)
        share, created = share_create(actor=self.user, packet_id=packet_id, to=to, note=note, link=link)
        return ShareSerializer(share).data, created

    def shares(self, direction: str, limit: int | None) -> list[dict]:
        listed = shares_list(viewer=self.user, direction=direction, limit=limit or SHARES_DEFAULT_LIMIT)
        return ShareListItemSerializer(listed, many=True).data

    def whoami(self) -> dict:
        user = self.user
        return {
            **token_identity(hub_url(self.caller.request), self.caller.token),
            "user": {"id": user.id, "username": user.username, "display": user.display_name},
            "scopes": sorted(self.caller.scopes),
        }
