"""An MCP client that signs itself in, end to end: the official SDK's client with its OAuth
provider against the hub on a live server, and a person in Chromium. The client meets a 401 at
/mcp, discovers the protected resource and the authorization server from it, registers (Dynamic
Client Registration, or a Client ID Metadata Document the hub fetches from a loopback TLS server),
sends the person to the consent page (signing in on the way), exchanges the code with PKCE and
calls tools with the token. Then the person disconnects it on the Tokens & devices page and its
next request fails."""

import asyncio
import json
import queue
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from oauth2_provider.models import get_access_token_model

from ltm.protocol.packet import example_packet
from mcp_remote.testing import public_client
from oauth.testing import tls_loopback_server
from packets.models import Packet

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"
REDIRECT = "http://127.0.0.1:47999/callback"  # nothing listens: the browser's request is caught


class MemoryStorage:
    """The client's token and registration storage, in memory."""

    def __init__(self):
        self.tokens = self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


def run_agent(url, person_signs_in, *, client_metadata_url=None):
    """The SDK client connects with OAuth and saves a packet; `person_signs_in(authorization_url)`
    plays the browser and returns the redirect's query. Returns (tool results, storage)."""
    urls, answers = queue.Queue(), queue.Queue()
    storage = MemoryStorage()

    async def redirect_handler(authorization_url):
        urls.put(authorization_url)

    async def callback_handler():
        query = await anyio.to_thread.run_sync(answers.get)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query["iss"][0])

    provider = OAuthClientProvider(
        server_url=url + "/mcp",
        client_metadata=OAuthClientMetadata(**public_client("Test Agent", [REDIRECT])),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=client_metadata_url,
    )

    async def main():
        async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
            async with Client(
                streamable_http_client(url + "/mcp", http_client=http), read_timeout_seconds=30
            ) as client:
                packet = {key: value for key, value in example_packet().items() if key not in ("id", "created_at")}
                save = await client.call_tool("save", {"packet": packet})
                whoami = await client.call_tool("whoami", {})
                return save, whoami

    # The SDK's client runs in a thread of its own; the browser (Playwright's sync API) stays here.
    with ThreadPoolExecutor(max_workers=1) as pool:
        agent = pool.submit(asyncio.run, main())
        answers.put(person_signs_in(urls.get(timeout=60)))
        save, whoami = agent.result(timeout=60)
    return (save, whoami), storage


def sign_in_and_allow(page, artifacts_dir, name):
    def person(authorization_url):
        caught = {}

        def catch(route):
            caught["url"] = route.request.url
            route.fulfill(status=200, body="You can close this window.")

        page.route(REDIRECT + "**", catch)
        page.goto(authorization_url)
        page.fill("#id_login", "alice")
        page.fill("#id_password", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_selector("button[name=allow]")
        page.screenshot(path=str(artifacts_dir / f"mcp-consent-{name}.png"), full_page=True)
        consent = page.inner_text("main") if page.query_selector("main") else page.inner_text("body")
        page.click("button[name=allow]")
        page.wait_for_function("() => true")
        for _ in range(100):
            if "url" in caught:
                break
            page.wait_for_timeout(100)
        query = parse_qs(urlsplit(caught["url"]).query)
        query["consent_text"] = consent
        return query

    return person


def tool_text(result):
    return "".join(block.text for block in result.content)


def test_registration_consent_pkce_then_tools_then_revoked(live_server, make_user, new_page, artifacts_dir):
    alice = make_user("alice", password=PASSWORD, email="alice@example.org")
    page = new_page()
    consent = {}

    def person(authorization_url):
        query = sign_in_and_allow(page, artifacts_dir, "dcr")(authorization_url)
        consent.update(query)
        return query

    (save, whoami), storage = run_agent(live_server.url, person)

    assert "Test Agent" in consent["consent_text"] and "127.0.0.1:47999" in consent["consent_text"]
    assert "alice" in consent["consent_text"] and "write" in consent["consent_text"]
    assert consent["iss"] == [live_server.url]
    assert not save.is_error, tool_text(save)
    assert Packet.objects.filter(owner=alice).count() == 1
    assert json.loads(tool_text(whoami))["user"]["username"] == "alice"
    token = get_access_token_model().objects.get(user=alice)
    assert token.resource == [live_server.url + "/mcp"]  # RFC 8707: the audience checked at /mcp

    # The person disconnects it on the dashboard; its next request is refused.
    page.goto(live_server.url + "/tokens")
    assert "Test Agent" in page.inner_text("#connected-apps")
    page.locator("#connected-apps button", has_text="Revoke").click()
    dialog = page.locator("dialog.confirm-dialog")  # the dashboard's confirmation (static/js)
    dialog.wait_for(state="visible")
    dialog.locator("button.confirm-ok").click()
    page.locator(".message", has_text="App disconnected.").wait_for()
    page.screenshot(path=str(artifacts_dir / "mcp-connected-app-revoked.png"), full_page=True)
    assert page.locator("#connected-apps .empty").is_visible()
    answer = httpx2.post(
        live_server.url + "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={
            "Authorization": f"Bearer {storage.tokens.access_token}",
            "Accept": "application/json, text/event-stream",
        },
    )
    assert answer.status_code == 401


def test_a_client_id_metadata_document_client(live_server, make_user, new_page, artifacts_dir, tmp_path, settings):
    alice = make_user("alice", password=PASSWORD)
    fetched = []

    def document(path):
        fetched.append(path)
        return {
            "client_id": base + "/agent/client.json",
            **public_client("Metadata Agent", [REDIRECT], grant_types=["authorization_code"]),
        }

    base, ca_file, stop = tls_loopback_server(tmp_path, document)
    settings.CIMD_LOOPBACK_CA_FILE = ca_file
    page = new_page()
    consent = {}

    def person(authorization_url):
        assert parse_qs(urlsplit(authorization_url).query)["client_id"] == [base + "/agent/client.json"]
        query = sign_in_and_allow(page, artifacts_dir, "cimd")(authorization_url)
        consent.update(query)
        return query

    try:
        (save, _), storage = run_agent(live_server.url, person, client_metadata_url=base + "/agent/client.json")
    finally:
        stop()
    assert fetched and fetched[0] == "/agent/client.json"
    assert "Metadata Agent" in consent["consent_text"]
    assert not save.is_error, tool_text(save)
    assert Packet.objects.filter(owner=alice).count() == 1
