"""The MCP server of /mcp: the official SDK's low-level Server and its Streamable HTTP transport
(stateless, JSON responses), run inside the hub's WSGI request.

Why not a separate ASGI app or an ASGI-to-WSGI adapter: the tools use the Django ORM, which must
run on the request's own thread (its connection handling, the test database, CONN_MAX_AGE and
the health of the connection all live there). `respond` calls the SDK through asgiref's
async_to_sync from the request thread: the event loop runs in a helper thread for the length of
the request, and the tools' sync_to_async(thread_sensitive=True) calls come back to the request
thread. So /mcp is one more Django view, served by runserver and granian's WSGI workers (web.py:
the Procfile and compose) alike, behind the same middleware as every page.

Stateless: each request gets a fresh transport and no session id; only POST reaches the SDK
(mcp_remote.views answers GET, the optional server-to-client stream, and DELETE with 405). The
SDK speaks the handshake revisions up to 2025-11-25 (`initialize`) and the per-request revision
2026-07-28 (`server/discover`); clients pick.
"""

from contextvars import ContextVar

import anyio
import mcp_types
from asgiref.sync import async_to_sync, sync_to_async
from django.http import HttpResponse
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from ltm import __version__
from ltm.protocol.tools import INSTRUCTIONS
from mcp_remote.tools import Caller, offered, run_tool

_caller: ContextVar[Caller] = ContextVar("mcp_caller")


async def _list_tools(ctx, params) -> mcp_types.ListToolsResult:
    return mcp_types.ListToolsResult(
        tools=[
            mcp_types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema)
            for spec in offered()
        ]
    )


async def _call_tool(ctx, params: mcp_types.CallToolRequestParams) -> mcp_types.CallToolResult:
    text, is_error = await sync_to_async(run_tool, thread_sensitive=True)(_caller.get(), params.name, params.arguments)
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=is_error)


server = Server(
    "ltm",
    # serverInfo.version: the release of the tree the hub is built from, which the hub ships as
    # the `ltm` package (cli/, ltm-hub-cli); `ltm mcp` reports the same.
    version=__version__,
    instructions=INSTRUCTIONS + " Acts as the person who signed this connection in.",
    on_list_tools=_list_tools,
    on_call_tool=_call_tool,
)


def respond(request, caller: Caller, body: bytes, max_body: int) -> HttpResponse:
    """The SDK's answer to this request (already authenticated, body already read)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode("utf-8"),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()
        ],
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
        "server": (request.get_host(), int(request.get_port())),
    }
    status, headers, content = async_to_sync(_serve)(scope, body, caller, max_body)
    response = HttpResponse(content, status=status)
    for name, value in headers:
        if name.lower() not in ("content-length", "date", "server"):
            response[name] = value
    return response


async def _serve(scope: dict, body: bytes, caller: Caller, max_body: int):
    _caller.set(caller)
    answered = anyio.Event()
    delivered = False
    start, chunks = {}, []

    async def receive():
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client stays until the answer is complete
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                answered.set()

    # A manager per request: it holds nothing between requests in stateless mode.
    manager = StreamableHTTPSessionManager(server, json_response=True, stateless=True, max_request_body_size=max_body)
    async with manager.run():
        await manager.handle_request(scope, receive, send)
    headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in start.get("headers", [])]
    return start.get("status", 500), headers, b"".join(chunks)
