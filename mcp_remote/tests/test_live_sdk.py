"""The official MCP SDK's Streamable HTTP client against the hub on pytest-django's live server
(a real HTTP server and WSGI requests, as the web server serves them): the tools an agent sees, save
then resume and search, the refusals, and tokens that stop working."""

import asyncio
import json
import re

import pytest

from accounts.services import api_token_create, api_token_revoke
from cli.testing import fresh_packet, packet_with_a_secret, text
from ltm.protocol.packet import example_packet
from ltm.protocol.resume import render_resume
from ltm.protocol.tools import TOOLS
from mcp_remote.testing import session
from oauth.testing import ensure_cli_application, make_access_token
from packets.models import Packet

pytestmark = pytest.mark.django_db(transaction=True)


def test_tools_save_resume_and_a_redaction_refusal(live_server, alice):
    token = api_token_create(actor=alice, name="agent")[1]

    async def steps(client):
        results = {"tools": {tool.name: tool for tool in (await client.list_tools()).tools}}
        results["secret"] = await client.call_tool("save", {"packet": packet_with_a_secret()})
        fresh = fresh_packet()
        results["save"] = await client.call_tool("save", {"packet": fresh})
        new_id = re.search(r"saved packet (\S+) on", text(results["save"])).group(1)
        results["resume"] = await client.call_tool("resume", {"id": new_id})
        results["search"] = await client.call_tool("search", {"q": fresh["goal"].split()[0]})
        results["whoami"] = await client.call_tool("whoami", {})
        return results

    results = session(live_server.url, token, steps)

    assert set(results["tools"]) == set(TOOLS)
    assert results["tools"]["save"].input_schema == TOOLS["save"].input_schema
    assert results["tools"]["save"].description == TOOLS["save"].description
    assert results["secret"].is_error
    assert "next_step: aws-key (AKIA…)" in text(results["secret"])
    assert "AKIAIOSFODNN7EXAMPLE" not in text(results["secret"])
    assert not results["save"].is_error, text(results["save"])
    stored = Packet.objects.get(owner=alice)
    assert text(results["resume"]) == render_resume(json.loads(stored.body))
    assert json.loads(text(results["whoami"]))["user"]["username"] == "alice"
    assert [hit["id"] for hit in json.loads(text(results["search"]))] == [stored.id]


def test_a_read_only_token_is_refused_on_save(live_server, alice):
    ensure_cli_application()  # a transactional test starts without the migration's rows
    make_access_token(alice, token="read-only-agent-token", scope="read")

    async def steps(client):
        return await client.call_tool("save", {"packet": example_packet()}), await client.call_tool("ls", {})

    save, listing = session(live_server.url, "read-only-agent-token", steps)
    assert save.is_error and "needs 'write'" in text(save)
    assert not listing.is_error
    assert not Packet.objects.exists()


def test_a_revoked_token_is_refused_on_its_next_request(live_server, alice):
    api_token, token = api_token_create(actor=alice, name="agent")

    async def steps(client):
        first = await client.call_tool("ls", {})
        await asyncio.to_thread(revoke)
        try:
            await client.call_tool("ls", {})
        except Exception as error:  # the SDK raises on the 401
            return first, error
        return first, None

    def revoke():
        api_token_revoke(actor=alice, token_id=api_token.id)

    statuses = []
    first, refusal = session(live_server.url, token, steps, statuses)
    assert not first.is_error
    assert refusal is not None
    assert statuses[-1] == 401 and 401 not in statuses[:-1]


def test_without_a_token_the_client_cannot_connect(live_server, db):
    async def steps(client):  # pragma: no cover (never reached)
        return await client.list_tools()

    with pytest.raises(Exception):  # noqa: B017 - the SDK's transport raises its own wrapper of the 401
        session(live_server.url, "ltm_nobody", steps)
