"""`ltm mcp`: the ltm verbs as Model Context Protocol tools over stdio, for coding agents.

The only module that imports the `mcp` SDK (the optional extra `ltm-hub-cli[mcp]`). The tools'
names, descriptions and input schemas come from ltm.protocol.tools, which the hub's /mcp endpoint
lists too; each function here parses its arguments, calls the verb and formats, as the command
line does. Every call reads the stored credentials afresh, so an `ltm auth` in another terminal
takes effect without restarting the agent. Failures come back as tool errors (is_error) whose
text tells the agent what to fix; a rejected packet lists every schema error with its JSON path,
so one more call can fix them all.
"""

from __future__ import annotations

import json
from contextlib import contextmanager

import anyio
import mcp_types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from . import __version__, verbs
from .errors import IdTaken, LtmError, PacketRejected, RedactionRefused
from .output import packet_summary, to_json, whoami_json
from .protocol import tools as specs
from .protocol.packet import canonical_json, with_defaults

INSTRUCTIONS = specs.INSTRUCTIONS + " Uses the person's `ltm auth` sign-in."


class ToolError(Exception):
    """A failed call: its text goes back to the agent as a tool error."""


def _save(packet: dict, allow_unredacted: bool = False, team: str | None = None) -> str:
    raw = json.dumps(with_defaults(packet), ensure_ascii=False).encode("utf-8")
    with _tool_errors():
        pushed = verbs.push(raw, team=team, allow_unredacted=allow_unredacted)
    return f"saved packet {pushed.id} on {pushed.host}" + (f" in team {team}" if team else "") + (
        f". Resume it with the `resume` tool, id {pushed.id!r}."
    )


def _resume(id: str, thread: bool = False) -> str:
    with _tool_errors():
        return verbs.resume_thread(id) if thread else verbs.resume(id)


def _ls(limit: int | None = None, team: str | None = None) -> str:
    with _tool_errors():
        return to_json(verbs.list_packets(limit=limit, team=team))


def _search(q: str, team: str | None = None, limit: int | None = None) -> str:
    with _tool_errors():
        return to_json(verbs.search(q, team=team, limit=limit))


def _show(id: str) -> str:
    with _tool_errors():
        return packet_summary(*verbs.show(id))


def _pull(id: str) -> str:
    with _tool_errors():
        return canonical_json(verbs.pull(id))


def _thread(id: str) -> str:
    with _tool_errors():
        return to_json(verbs.thread(id))


def _rm(id: str) -> str:
    with _tool_errors():
        verbs.rm(id)
    return f"deleted {id}"


def _publish(id: str) -> str:
    with _tool_errors():
        return verbs.publish(id)


def _unpublish(id: str) -> str:
    with _tool_errors():
        verbs.unpublish(id)
    return f"unpublished {id}"


def _whoami() -> str:
    with _tool_errors():
        return whoami_json(verbs.whoami())


def _platform() -> str:
    with _tool_errors():
        return verbs.dashboard_url()


# Each tool of ltm.protocol.tools (TOOLS and LOCAL_TOOLS) with the function that does it here.
HANDLERS = {
    "save": _save,
    "push": _save,
    "resume": _resume,
    "thread": _thread,
    "search": _search,
    "ls": _ls,
    "show": _show,
    "pull": _pull,
    "rm": _rm,
    "publish": _publish,
    "unpublish": _unpublish,
    "example": lambda: to_json(verbs.example()),
    "whoami": _whoami,
    "platform": _platform,
}
SPECS = {**specs.TOOLS, **specs.LOCAL_TOOLS}


@contextmanager
def _tool_errors():
    """Turn the client's errors into tool errors whose text tells the agent what to do."""
    try:
        yield
    except PacketRejected as error:
        raise ToolError(specs.rejected_message(error.details)) from None
    except RedactionRefused as error:
        raise ToolError(specs.redaction_message(error.details)) from None
    except IdTaken as error:
        raise ToolError(specs.id_taken_message(error.packet_id)) from None
    except LtmError as error:
        # The agent cannot sign in for the person; it can only ask them to.
        raise ToolError(error.report().replace("run `ltm", "ask the person to run `ltm")) from None


def call(name: str, arguments: dict | None) -> str:
    """Run one tool; ToolError when the arguments or the call fail."""
    spec = SPECS.get(name)
    if spec is None:
        raise ToolError(f"unknown tool {name!r}; the tools are: {', '.join(SPECS)}")
    arguments = specs.present(arguments)
    problems = specs.argument_errors(spec, arguments)
    if problems:
        raise ToolError(f"invalid arguments for {name}:\n" + "\n".join(f"- {p}" for p in problems)
                        + ("\n" + specs.PACKET_SHAPE if "packet" in spec.properties else ""))
    return HANDLERS[name](**arguments)


# --- serving over stdio ------------------------------------------------------------------------

async def _list_tools(ctx, params) -> mcp_types.ListToolsResult:
    return mcp_types.ListToolsResult(tools=[
        mcp_types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)
        for spec in SPECS.values()
    ])


async def _call_tool(ctx, params: mcp_types.CallToolRequestParams):
    try:
        text = await anyio.to_thread.run_sync(call, params.name, params.arguments)
    except ToolError as error:  # a failed call is a result the agent reads, not a protocol error
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=str(error))],
                                        is_error=True)
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)])


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
