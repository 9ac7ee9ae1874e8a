"""`ltm mcp`: the ltm verbs as Model Context Protocol tools over stdio, for coding agents.

The only module that imports the `mcp` SDK (the optional extra `ltm-hub-cli[mcp]`). The tools'
names, descriptions and input schemas come from ltm.protocol.tools and what each answers from
ltm.protocol.tool_calls, both shared with the hub's /mcp endpoint; here is only the backend that
reaches the hub through the verbs, as the command line does. Every call reads the stored
credentials afresh, so an `ltm auth` in another terminal takes effect without restarting the
agent. Failures come back as tool errors (is_error) whose text tells the agent what to fix; a
rejected packet lists every schema error with its JSON path, so one more call can fix them all.
"""

from __future__ import annotations

import anyio
import mcp_types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from . import __version__, verbs
from .errors import IdTaken, LtmError, PacketRejected, RedactionRefused
from .output import header
from .protocol import tool_calls
from .protocol import tools as specs
from .protocol.packet import canonical_json
from .protocol.tool_calls import ToolError

INSTRUCTIONS = specs.INSTRUCTIONS + " Uses the person's `ltm auth` sign-in."
SPECS = {**specs.TOOLS, **specs.LOCAL_TOOLS}


class VerbsBackend:
    """The tools' reads and writes (see ltm.protocol.tool_calls.Backend) through the hub's API."""

    def push(self, packet: dict, team: str | None) -> tuple[str, str, list[dict]]:
        try:
            pushed = verbs.push_packet(packet, team=team)
        except verbs.SecretsRefused as refusal:
            raise ToolError(specs.secrets_refused_message(refusal.findings)) from None
        return pushed.host, pushed.id, pushed.findings

    def packet(self, packet_id: str) -> dict:
        return verbs.show(packet_id)[0]

    def pull(self, packet_id: str) -> str:
        return canonical_json(verbs.pull(packet_id))

    def show(self, packet_id: str):
        packet, headers = verbs.show(packet_id)
        return packet, header(headers, "X-LTM-Public-URL"), header(headers, "X-LTM-Published-At")

    def thread(self, packet_id: str) -> list[dict]:
        return verbs.thread(packet_id)

    def search(self, q: str, team: str | None, limit: int | None, mode: str = "hybrid") -> list[dict]:
        return verbs.search(q, team=team, limit=limit, mode=mode)  # /v1/search's results, shared_by included

    def packets(self, limit: int | None, team: str | None) -> list[dict]:
        return verbs.list_packets(limit=limit, team=team)

    def delete(self, packet_id: str) -> None:
        verbs.rm(packet_id)

    def publish(self, packet_id: str) -> str:
        return verbs.publish(packet_id)

    def unpublish(self, packet_id: str) -> None:
        verbs.unpublish(packet_id)

    def share(self, packet_id: str, to: str, note: str | None) -> tuple[dict, bool]:
        return verbs.share(packet_id, to, note)

    def shares(self, direction: str, limit: int | None) -> list[dict]:
        return verbs.shares(direction, limit)

    def whoami(self) -> dict:
        return verbs.whoami()

    def dashboard_url(self) -> str:
        return verbs.dashboard_url()


def call(name: str, arguments: dict | None) -> str:
    """Run one tool; ToolError when the arguments or the call fail."""
    _, arguments = tool_calls.checked(SPECS, name, arguments)
    try:
        return tool_calls.answer(VerbsBackend(), name, arguments)
    except PacketRejected as error:
        raise ToolError(specs.rejected_message(error.details)) from None
    except RedactionRefused as error:
        raise ToolError(specs.redaction_message(error.details)) from None
    except IdTaken as error:
        raise ToolError(specs.id_taken_message(error.packet_id)) from None
    except LtmError as error:
        # The agent cannot sign in for the person; it can only ask them to.
        raise ToolError(error.report().replace("run `ltm", "ask the person to run `ltm")) from None


# --- serving over stdio ------------------------------------------------------------------------


async def _list_tools(ctx, params) -> mcp_types.ListToolsResult:
    return mcp_types.ListToolsResult(
        tools=[
            mcp_types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)
            for spec in SPECS.values()
        ]
    )


async def _call_tool(ctx, params: mcp_types.CallToolRequestParams):
    try:
        text = await anyio.to_thread.run_sync(call, params.name, params.arguments)
    except ToolError as error:  # a failed call is a result the agent reads, not a protocol error
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=str(error))], is_error=True)
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)])


server = Server(
    "ltm", version=__version__, instructions=INSTRUCTIONS, on_list_tools=_list_tools, on_call_tool=_call_tool
)


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
