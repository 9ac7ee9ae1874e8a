"""What each MCP tool does on the hub: the same services and selectors as the /v1 views, with the
names, descriptions, schemas and scopes of ltm.protocol.tools.

`run_tool` is plain synchronous Django (the ORM, transactions): mcp_remote.server calls it from
the SDK's event loop on the request's own thread. Every outcome is text for the agent; a refusal
or a failure is a tool error carrying the hub's message, never an HTTP error.

To offer another tool: declare it in ltm.protocol.tools.TOOLS and register its function here
with @tool("name").
"""

import hashlib
import json
import logging
from dataclasses import dataclass

from allauth.core import ratelimit
from django.http import HttpRequest

from accounts.authentication import SCOPE_REFUSED
from accounts.models import User
from core.errors import HubError
from core.links import hub_url
from core.timestamps import rfc3339
from ltm.protocol import tools as specs
from ltm.protocol.tools import thread_lineage
from ltm.protocol.packet import PacketError, fresh_example, parse_packet, with_defaults
from ltm.protocol.redact import scan_packet
from ltm.protocol.resume import render_resume
from ltm.protocol.summary import summary
from packets import selectors, services
from packets.serializers import PacketListItemSerializer, SearchResultSerializer, ThreadItemSerializer
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


class Refused(Exception):
    """A tool call refused before it reached a service; the text goes back to the agent."""


HANDLERS = {}


def tool(name: str):
    assert name in specs.TOOLS, f"declare {name} in ltm.protocol.tools.TOOLS first"

    def register(function):
        HANDLERS[name] = function
        return function

    return register


def offered() -> list[specs.ToolSpec]:
    return [spec for name, spec in specs.TOOLS.items() if name in HANDLERS]


def run_tool(caller: Caller, name: str, arguments) -> tuple[str, bool]:
    """(text, is_error) of one call."""
    spec = specs.TOOLS.get(name)
    if spec is None or name not in HANDLERS:
        return f"unknown tool {name!r}; the tools are: {', '.join(s.name for s in offered())}", True
    arguments = specs.present(arguments)
    problems = specs.argument_errors(spec, arguments)
    if problems:
        return f"invalid arguments for {name}:\n" + "\n".join(f"- {p}" for p in problems), True
    if spec.scope not in caller.scopes:
        return SCOPE_REFUSED[spec.scope], True
    token_key = hashlib.sha256(caller.token.encode("utf-8")).hexdigest()
    if not ratelimit.consume(caller.request, action="mcp_tool_call", key=token_key):
        return RATE_LIMITED, True
    try:
        return HANDLERS[name](caller, **arguments), False
    except (HubError, Refused) as refusal:
        return str(refusal), True
    except Exception:  # a database outage, a bug: the agent hears it failed, the log has why
        log.exception("MCP tool %s failed", name)
        return FAILED, True


def _packet(caller: Caller, packet_id: str):
    return selectors.packet_get(viewer=caller.user, packet_id=packet_id)


@tool("save")
def save(caller: Caller, *, packet: dict, allow_unredacted: bool = False, team: str | None = None) -> str:
    raw = json.dumps(with_defaults(packet), ensure_ascii=False).encode("utf-8")
    try:
        packet = parse_packet(raw)  # the same checks as the CLI's, the 32 KiB cap among them
    except PacketError as error:
        raise Refused(specs.rejected_message(error.errors)) from None
    if not allow_unredacted:
        findings = scan_packet(packet)
        if findings:
            raise Refused(specs.redaction_message([str(finding) for finding in findings]))
    scope = team_get_for_member(viewer=caller.user, name=team) if team else None
    stored = services.packet_push(actor=caller.user, packet=packet, team=scope)
    return (f"saved packet {stored.id} on {hub_url(caller.request)}" + (f" in team {team}" if team else "")
            + f". Resume it with the `resume` tool, id {stored.id!r}.")


def _body(caller: Caller, packet_id: str) -> dict:
    return json.loads(_packet(caller, packet_id).body)


@tool("resume")
def resume(caller: Caller, *, id: str, thread: bool = False) -> str:
    if not thread:
        return render_resume(_body(caller, id))
    latest, lineage = thread_lineage(selectors.packet_thread(viewer=caller.user, packet_id=id))
    return render_resume(_body(caller, latest), [_body(caller, ancestor) for ancestor in lineage])


@tool("thread")
def thread(caller: Caller, *, id: str) -> str:
    items = selectors.packet_thread(viewer=caller.user, packet_id=id)
    return json.dumps(ThreadItemSerializer(items, many=True).data, indent=2, ensure_ascii=False)


@tool("search")
def search(caller: Caller, *, q: str, team: str | None = None, limit: int = selectors.SEARCH_DEFAULT_LIMIT) -> str:
    if not q.strip():
        raise Refused("q is required: the words to search for")
    hits = selectors.packet_text_search(viewer=caller.user, text=q, team_name=team, limit=limit)
    results = [
        {"id": hit.packet.id, "created_at": hit.packet.created_at, "goal": hit.packet.goal,
         "team_name": hit.team, "snippet": hit.snippet_text, "score": hit.score}
        for hit in hits
    ]
    return json.dumps(SearchResultSerializer(results, many=True).data, indent=2, ensure_ascii=False)


@tool("show")
def show(caller: Caller, *, id: str) -> str:
    packet = _packet(caller, id)
    published = bool(packet.public_slug)
    return summary(
        json.loads(packet.body),
        public_url=selectors.public_url(caller.request, packet) if published else None,
        published_at=rfc3339(packet.published_at) if published else None,
    )


@tool("pull")
def pull(caller: Caller, *, id: str) -> str:
    return _packet(caller, id).body


@tool("ls")
def ls(caller: Caller, *, limit: int = selectors.DEFAULT_LIMIT, team: str | None = None) -> str:
    packets = selectors.packet_list(viewer=caller.user, team_name=team, limit=limit)
    return json.dumps(PacketListItemSerializer(packets, many=True).data, indent=2, ensure_ascii=False)


@tool("rm")
def rm(caller: Caller, *, id: str) -> str:
    services.packet_delete(actor=caller.user, packet_id=id)
    return f"deleted {id}"


@tool("publish")
def publish(caller: Caller, *, id: str) -> str:
    return selectors.public_url(caller.request, services.packet_publish(actor=caller.user, packet_id=id))


@tool("unpublish")
def unpublish(caller: Caller, *, id: str) -> str:
    services.packet_unpublish(actor=caller.user, packet_id=id)
    return f"unpublished {id}"


@tool("example")
def example(caller: Caller) -> str:
    return json.dumps(fresh_example(), indent=2, ensure_ascii=False)


@tool("whoami")
def whoami(caller: Caller) -> str:
    user = caller.user
    return json.dumps({
        "host": hub_url(caller.request),
        "token_hash8": hashlib.sha256(caller.token.encode("utf-8")).hexdigest()[:8],
        "user": {"id": user.id, "username": user.username, "display": user.display_name},
        "scopes": sorted(caller.scopes),
    }, indent=2, ensure_ascii=False)
