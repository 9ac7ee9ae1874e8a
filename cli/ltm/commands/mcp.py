"""`ltm mcp`: the MCP server, whose SDK is the optional extra `ltm-hub-cli[mcp]`."""

from __future__ import annotations

from ..errors import LtmError

# What the SDK brings; missing, `ltm mcp` cannot run, and says how to install it.
SDK_MODULES = {"mcp", "mcp_types", "anyio", "pydantic"}
MISSING_SDK = (
    "`ltm mcp` needs the MCP SDK, an optional extra: pip install 'ltm-hub-cli[mcp]' "
    "(from a checkout of the hub: pip install './cli[mcp]')"
)


def register(add) -> None:
    add("mcp", cmd_mcp, "serve the ltm tools to an agent over MCP (stdio)")


def cmd_mcp(args) -> int:
    try:
        from ..mcp_server import serve  # the SDK is only loaded for this command
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in SDK_MODULES:
            raise
        raise LtmError(MISSING_SDK) from None
    serve()
    return 0
