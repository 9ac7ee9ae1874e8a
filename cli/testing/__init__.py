"""Helpers of the tests that speak MCP, the client's (`cli/tests`: `ltm mcp`) and the hub's
(`mcp_remote`: /mcp, and the browser tests): a coroutine run apart from any running event loop, a
session with `ltm mcp` as a subprocess, a tool result's text, and the packets the tests save."""

import asyncio
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import ltm
from ltm.protocol.packet import example_packet


def run_async(coroutine):
    """Run `coroutine` to its end and return its result, in a thread of its own: when the browser
    tests ran first, Playwright's sync API keeps an event loop running in the main thread, and
    asyncio.run refuses to nest in it."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def mcp_env(config_dir, hub_url) -> dict:
    """The environment of an `ltm mcp` subprocess: this client's package, a config folder and a hub."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.path.dirname(os.path.dirname(ltm.__file__)),
        "LTM_CONFIG_DIR": str(config_dir),
        "LTM_HUB_URL": hub_url,
    }


def run_session(config_dir, hub_url, steps):
    """Start `python -m ltm mcp` and run `steps(client)` against it with the official MCP SDK's stdio
    client; returns what steps returns."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "ltm", "mcp"], env=mcp_env(config_dir, hub_url))

    async def main():
        async with Client(params, read_timeout_seconds=30) as client:
            return await steps(client)

    return run_async(main())


def text(result):
    """The text of an MCP tool result."""
    return "".join(block.text for block in result.content)


def two_packet_thread():
    """(first, second): two example packets a day apart, the second continuing the first; the first
    holds a failed attempt, the second none."""
    first, second = example_packet(), example_packet()
    first.update(
        id="01MCPTHREAD000000000000001",
        created_at="2026-04-01T00:00:00Z",
        attempts=[{"tried": "Polling", "outcome": "failed", "learned": "too slow"}],
    )
    second.update(
        id="01MCPTHREAD000000000000002", created_at="2026-04-02T00:00:00Z", parent_id=first["id"], attempts=[]
    )
    return first, second


def fresh_packet():
    """An example packet without its id and time, which the save tool gives it."""
    packet = example_packet()
    del packet["id"], packet["created_at"]
    return packet


def packet_with_a_secret():
    """An example packet whose next step holds an AWS access key: the redaction pre-flight refuses it
    (next_step: aws-key (AKIA…))."""
    return {**example_packet(), "next_step": "export AWS key AKIAIOSFODNN7EXAMPLE and continue"}
