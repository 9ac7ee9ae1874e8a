"""`ltm mcp`: the ltm verbs as Model Context Protocol tools over stdio, for coding agents.

The only module that imports the `mcp` SDK (the optional extra `ltm-hub-cli[mcp]`). Each tool
parses its arguments, calls the verb and formats, as the command line does; every call reads the
stored credentials afresh, so an `ltm auth` in another terminal takes effect without restarting
the agent. Failures come back as tool errors (is_error) whose text tells the agent what to fix; a
rejected packet lists every schema error with its JSON path, so one more call can fix them all.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Annotated, Any

import anyio
import mcp_types
from mcp.server import MCPServer, Server
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from pydantic import Field

from . import __version__, verbs
from .errors import IdTaken, LtmError, PacketRejected, RedactionRefused
from .output import packet_summary, plural, to_json, whoami_json
from .protocol.packet import canonical_json

PACKET_SHAPE = """\
The packet is one JSON object, an ltm Core Memory Packet v0.2, at most 32 KiB as JSON. Fields not \
listed here are rejected, at every level.
Required:
- ltm_version: the string "0.2".
- id: string of 10 to 64 characters, unique on the hub (a ULID). Leave it out for a new packet: \
a fresh ULID is filled in. Reuse an id only to update a packet of your own.
- created_at: RFC 3339 date-time with a zone, e.g. "2026-04-22T09:30:00Z". May be omitted: the \
current time is filled in.
- goal: string, 1 to 1024 characters: the obstacle being worked on.
- next_step: string, 1 to 1024 characters: the first action for whoever resumes.
Optional:
- parent_id: string of 10 to 64 characters: the id of the packet this one continues.
- project: object {"name": string up to 128, "ref": string up to 256 (e.g. the repository URL)}.
- success_criteria: array of up to 16 strings (each up to 1024): observable done-conditions.
- constraints: array of up to 32 strings (each up to 1024).
- decisions: array of up to 64 objects {"what": string up to 1024 (required), "why": string up to \
1024 (required), "consequences": string up to 1024, "locked": boolean (true: settled, not to be \
reopened)}.
- methods: array of up to 32 objects {"name": slug matching ^[a-z0-9][a-z0-9-]{0,127}$ (required), \
"when_applicable": string up to 1024 (required), "how": string up to 2048 (required)}.
- attempts: array of up to 64 objects {"tried": string up to 1024 (required), "outcome": one of \
"succeeded", "failed", "partial" (required), "learned": string up to 1024, "confidence": one of \
"low", "medium", "high"}.
- open_questions: array of up to 32 strings (each up to 1024).
- tags: array of up to 16 slugs matching ^[a-z0-9][a-z0-9-]{0,31}$.
- provenance: object {"author_model": string up to 128, "author_human": string up to 128, \
"source_hash": "sha256:" then 64 lower-case hex digits, "confidence": one of "low", "medium", "high"}.
Keep secrets and absolute machine paths (/home/..., /Users/..., C:\\...) out of every text field: \
the redaction pre-flight refuses the packet otherwise."""

PacketArg = Annotated[dict[str, Any], Field(description="The packet, shaped as the tool description says.")]
AllowArg = Annotated[bool, Field(description="Push even if the redaction pre-flight finds secrets or "
                                             "absolute paths. Only when the person explicitly agreed.")]
TeamArg = Annotated[str | None, Field(description="Team name: act on that team's packets instead of "
                                                  "the person's own.")]
IdArg = Annotated[str, Field(description="The packet id (its `id` field), as listed by `ls`.")]

INSTRUCTIONS = (
    "Save the state of a coding session as an ltm packet and resume it later or elsewhere. "
    "Call `example` to see a complete valid packet. Uses the person's `ltm auth` sign-in."
)

# The tools, declared on the SDK's MCPServer for their argument schemas and validation; the
# connection itself is served by a low-level Server (see `serve`).
tools = MCPServer("ltm", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")


def _save_or_push(packet: dict, allow_unredacted: bool, team: str | None) -> str:
    if not isinstance(packet, dict):
        raise ToolError("`packet` must be a JSON object. " + PACKET_SHAPE)
    # Agents are poor at minting ULIDs and clocks: fill `id` and `created_at` when left out.
    raw = json.dumps(verbs.with_defaults(packet), ensure_ascii=False).encode("utf-8")
    with _tool_errors():
        pushed = verbs.push(raw, team=team, allow_unredacted=allow_unredacted)
    return f"saved packet {pushed.id} on {pushed.host}" + (f" in team {team}" if team else "") + (
        f". Resume it with the `resume` tool, id {pushed.id!r}."
    )


@tools.tool(description="Save a packet (the state of this session) to the person's ltm hub. " + PACKET_SHAPE,
            structured_output=False)
def save(packet: PacketArg, allow_unredacted: AllowArg = False, team: TeamArg = None) -> str:
    return _save_or_push(packet, allow_unredacted, team)


@tools.tool(description="Push a packet to the person's ltm hub (the same as `save`). " + PACKET_SHAPE,
            structured_output=False)
def push(packet: PacketArg, allow_unredacted: AllowArg = False, team: TeamArg = None) -> str:
    return _save_or_push(packet, allow_unredacted, team)


@tools.tool(description="The resume block of a packet: markdown to read before continuing the work it "
                        "describes. Locked decisions are settled; failed attempts are not to be retried "
                        "without new information; start with its first action.",
            structured_output=False)
def resume(id: IdArg, thread: Annotated[bool, Field(
        description="Resume the newest packet of the thread that holds `id` instead, with the locked "
                    "decisions and failed attempts of the packets it continues carried in.")] = False) -> str:
    with _tool_errors():
        return verbs.resume_thread(id) if thread else verbs.resume(id)


@tools.tool(description="List packets, newest first, as JSON [{id, created_at, goal}].",
            structured_output=False)
def ls(limit: Annotated[int | None, Field(description="How many, 1 to 500 (default 50).")] = None,
       team: TeamArg = None) -> str:
    with _tool_errors():
        return to_json(verbs.list_packets(limit=limit, team=team))


@tools.tool(description="Search the person's packets and their teams' by words, best first, as JSON "
                        "[{id, created_at, goal, team, snippet, score}]. Words match in any order with "
                        'English stemming; "quoted phrases", -word to exclude and OR work as in web '
                        "search; a packet id (or its first 10+ characters) finds that packet. Then `resume` "
                        "the one that fits.",
            structured_output=False)
def search(q: Annotated[str, Field(description="What to search for.")],
           team: Annotated[str | None, Field(description="Team name: only that team's packets.")] = None,
           limit: Annotated[int | None, Field(description="How many, 1 to 100 (default 20).")] = None) -> str:
    with _tool_errors():
        return to_json(verbs.search(q, team=team, limit=limit))


@tools.tool(description="A short summary of one packet, with its public URL when published.",
            structured_output=False)
def show(id: IdArg) -> str:
    with _tool_errors():
        return packet_summary(*verbs.show(id))


@tools.tool(description="The full JSON of one packet.", structured_output=False)
def pull(id: IdArg) -> str:
    with _tool_errors():
        return canonical_json(verbs.pull(id))


@tools.tool(description="The thread a packet belongs to: the packets linked to it by parent_id (what it "
                        "continues and what continues it) that the person may read, oldest first, as JSON "
                        "[{id, parent_id, created_at, goal, team}]. Resume the newest with `resume` and "
                        "thread: true.",
            structured_output=False)
def thread(id: IdArg) -> str:
    with _tool_errors():
        return to_json(verbs.thread(id))


@tools.tool(description="Delete a packet from the hub. Only when the person asked for it.",
            structured_output=False)
def rm(id: IdArg) -> str:
    with _tool_errors():
        verbs.rm(id)
    return f"deleted {id}"


@tools.tool(description="Make a public, read-only web page of a packet (anyone with the link can read "
                        "it). Only when the person asked for it. Returns the URL.",
            structured_output=False)
def publish(id: IdArg) -> str:
    with _tool_errors():
        return verbs.publish(id)


@tools.tool(description="Take a packet's public page down; the packet itself stays.", structured_output=False)
def unpublish(id: IdArg) -> str:
    with _tool_errors():
        verbs.unpublish(id)
    return f"unpublished {id}"


@tools.tool(description="A complete, valid example packet (v0.2) to model a new packet on, with a fresh "
                        "`id` and `created_at`.",
            structured_output=False)
def example() -> str:
    return to_json(verbs.example())


@tools.tool(description="Which hub this server talks to and which token it uses, as JSON "
                        '{"host", "token_hash8"} (the first 8 hex digits of sha256(token)); either is '
                        "empty when not set: then ask the person to run `ltm auth <host>`.",
            structured_output=False)
def whoami() -> str:
    return whoami_json(verbs.whoami())


@tools.tool(description="The URL of the hub's web dashboard, for the person to open.", structured_output=False)
def platform() -> str:
    with _tool_errors():
        return verbs.dashboard_url()


@contextmanager
def _tool_errors():
    """Turn the client's errors into tool errors whose text tells the agent what to do."""
    try:
        yield
    except PacketRejected as error:
        raise ToolError(
            f"packet rejected with {plural(len(error.details), 'error')}; fix all of them and call again:\n"
            + "\n".join(f"- {detail}" for detail in error.details)
        ) from None
    except RedactionRefused as error:
        raise ToolError(
            "packet refused: it contains secrets or absolute paths. Remove or generalise them and "
            "call again (or pass allow_unredacted: true only if the person explicitly agreed):\n"
            + "\n".join(f"- {detail}" for detail in error.details)
        ) from None
    except IdTaken as error:
        raise ToolError(
            f"packet id {error.packet_id} is already taken on the hub by someone else; leave `id` out "
            "(a fresh one is filled in) or use a new ULID, and call again"
        ) from None
    except LtmError as error:
        # The agent cannot sign in for the person; it can only ask them to.
        raise ToolError(error.report().replace("run `ltm", "ask the person to run `ltm")) from None


# --- serving over stdio ------------------------------------------------------------------------

async def _list_tools(ctx, params) -> mcp_types.ListToolsResult:
    return mcp_types.ListToolsResult(tools=await tools.list_tools())


async def _call_tool(ctx, params: mcp_types.CallToolRequestParams):
    try:
        return await tools.call_tool(params.name, params.arguments or {})
    except ToolError as error:  # a failed call is a result the agent reads, not a protocol error
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=str(error))],
                                        is_error=True)


server = Server("ltm", version=__version__, instructions=INSTRUCTIONS,
                on_list_tools=_list_tools, on_call_tool=_call_tool)


def serve() -> None:
    anyio.run(_serve_stdio)


# At the end of stdin the SDK's dispatcher cancels the requests still in flight ("their callers
# are gone"), so `printf '<initialize>\n<tools/list>\n<tools/call>\n' | ltm mcp` would answer only
# some of them. The streams handed to Server.run hold the end of the input back until every
# request already read has been answered (or cancelled by the client).

DRAIN_TIMEOUT = 120  # seconds a request read before the end of stdin gets to finish


async def _serve_stdio() -> None:
    async with stdio_server() as (read_stream, write_stream):
        pending = _Pending()
        await server.run(
            _DrainingReader(read_stream, pending),
            _AnswerWatcher(write_stream, pending),
            server.create_initialization_options(),
        )


class _Pending:
    """The ids of the requests read and not answered yet."""

    def __init__(self):
        self.ids: set = set()
        self.idle = anyio.Event()
        self.idle.set()

    def add(self, request_id) -> None:
        self.ids.add(str(request_id))
        if self.idle.is_set():
            self.idle = anyio.Event()

    def discard(self, request_id) -> None:
        self.ids.discard(str(request_id))
        if not self.ids:
            self.idle.set()


class _DrainingReader:
    """The transport's read stream, whose end waits for the pending answers."""

    def __init__(self, inner, pending: _Pending):
        self.inner, self.pending = inner, pending

    @property
    def last_context(self):  # the sender's context, for the SDK (see mcp.shared._stream_protocols)
        return getattr(self.inner, "last_context", None)

    async def receive(self):
        try:
            item = await self.inner.receive()
        except anyio.EndOfStream:
            with anyio.move_on_after(DRAIN_TIMEOUT):
                while not self.pending.idle.is_set():
                    await self.pending.idle.wait()
            raise
        message = getattr(item, "message", None)
        if isinstance(message, mcp_types.JSONRPCRequest):
            self.pending.add(message.id)
        elif isinstance(message, mcp_types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self.pending.discard((message.params or {}).get("requestId"))  # never answered
        return item

    async def aclose(self) -> None:
        await self.inner.aclose()

    def __aiter__(self):
        return self

    async def __anext__(self):
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()


class _AnswerWatcher:
    """The transport's write stream, noting which requests have been answered."""

    def __init__(self, inner, pending: _Pending):
        self.inner, self.pending = inner, pending

    async def send(self, item) -> None:
        await self.inner.send(item)
        message = getattr(item, "message", None)
        if isinstance(message, (mcp_types.JSONRPCResponse, mcp_types.JSONRPCError)):
            self.pending.discard(message.id)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()
