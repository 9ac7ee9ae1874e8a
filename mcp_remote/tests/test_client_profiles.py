"""The MCP clients that really connect, each replaying the sequence its developers published
(discovery, registration or a client metadata document, consent, the code exchange, a tool call)
against the hub, with the quirks their issue trackers record:

- Cursor registers three redirect URIs at once, one of them its own `cursor:` scheme, as a
  "web" application;
- VS Code identifies itself by a client metadata document and moves off its loopback port when
  it is busy;
- Claude Code omits `resource` and reads the path-suffixed protected resource metadata;
- ChatGPT's connectors redirect to chatgpt.com and ask for `offline_access`;
- an MCP 2026-07-28 client is stateless (`server/discover`, no `initialize`) and checks `iss`.

The browser journey with the SDK's own client is tests/e2e/test_mcp_oauth.py."""

import base64
import hashlib
import json
import re
import secrets
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client
from oauth2_provider.models import get_access_token_model

from core.testing import signed_in
from mcp_remote.testing import public_client
from oauth.testing import tls_loopback_server

HUB = "http://testserver"
MCP = HUB + "/mcp"
FORM = "application/x-www-form-urlencoded"
META = "io.modelcontextprotocol/"


def discover(resource_metadata_path=None):
    """What a client learns before it signs in: the 401's pointer to the protected resource
    metadata (or the path it tries itself), then the authorization server's metadata."""
    challenge = Client().post("/mcp", "{}", content_type="application/json")
    assert challenge.status_code == 401
    pointer = re.search(r'resource_metadata="([^"]+)"', challenge["WWW-Authenticate"]).group(1)
    resource = Client().get(resource_metadata_path or urlsplit(pointer).path)
    assert resource.status_code == 200, resource.content
    resource = resource.json()
    assert resource["resource"] == MCP
    (issuer,) = resource["authorization_servers"]
    server = Client().get(urlsplit(issuer).path.rstrip("/") + "/.well-known/oauth-authorization-server").json()
    assert server["issuer"] == issuer
    return server


def register(**metadata):
    response = Client().post("/oauth/register", json.dumps(metadata), content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()["client_id"]


def consent(person, client_id, redirect_uri, *, scope=None, resource=None):
    """The client makes a PKCE pair and sends the person's browser to the consent page, where the
    person allows it: (the page's text, the redirect's query parameters, the PKCE verifier)."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": "s-123",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    if scope:
        params["scope"] = scope
    if resource:
        params["resource"] = resource
    page = person.get("/oauth/authorize?" + urlencode(params))
    assert page.status_code == 200, page.content
    form = {name: page.context["form"][name].value() or "" for name in page.context["form"].fields}
    answer = person.post("/oauth/authorize", {**form, "allow": "on"})
    assert answer.status_code == 302, answer.content
    location = answer["Location"]
    assert location.startswith(redirect_uri + "?"), location
    query = {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
    assert query["state"] == "s-123"
    return page.content.decode(), query, verifier


def token_request(**fields):
    response = Client().post("/oauth/token", urlencode(fields), content_type=FORM)
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "no-store"
    return response.json()


def redeem(client_id, answer, redirect_uri, verifier, **extra):
    """The client exchanges the code the consent page sent back (with PKCE's verifier)."""
    return token_request(
        grant_type="authorization_code",
        client_id=client_id,
        code=answer["code"],
        redirect_uri=redirect_uri,
        code_verifier=verifier,
        **extra,
    )


def mcp(token, method, params, protocol, **headers):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = Client().post(
        "/mcp",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION=protocol,
        **headers,
    )
    assert response.status_code == 200, response.content
    return response.json()["result"]


def whoami_with_a_handshake(token, protocol):
    """A client of the handshake revisions (up to 2025-11-25): initialize, then a tool call."""
    started = mcp(
        token,
        "initialize",
        {"protocolVersion": protocol, "capabilities": {}, "clientInfo": {"name": "profile", "version": "1"}},
        protocol,
    )
    assert started["protocolVersion"] == protocol
    result = mcp(token, "tools/call", {"name": "whoami", "arguments": {}}, protocol)
    assert not result.get("isError"), result
    return json.loads(result["content"][0]["text"])


def whoami_stateless(token):
    """A 2026-07-28 client: server/discover, then a tool call, each request on its own."""
    protocol = "2026-07-28"
    meta = {
        META + "protocolVersion": protocol,
        META + "clientInfo": {"name": "profile", "version": "1"},
        META + "clientCapabilities": {},
    }
    discovered = mcp(token, "server/discover", {"_meta": meta}, protocol, HTTP_MCP_METHOD="server/discover")
    assert protocol in discovered["supportedVersions"]
    assert "tools" in discovered["capabilities"]
    result = mcp(
        token,
        "tools/call",
        {"name": "whoami", "arguments": {}, "_meta": meta},
        protocol,
        HTTP_MCP_METHOD="tools/call",
        HTTP_MCP_NAME="whoami",
    )
    assert not result.get("isError"), result
    return json.loads(result["content"][0]["text"])


@pytest.fixture
def metadata_documents(tmp_path, settings):
    """Publishes client metadata documents on a loopback TLS server the hub trusts; yields a
    function that publishes one at a path and returns its URL (the client_id)."""
    published = {}
    base, ca_file, stop = tls_loopback_server(tmp_path, lambda path: published[path])
    settings.CIMD_LOOPBACK_CA_FILE = ca_file

    def publish(path, document):
        published[path] = {"client_id": base + path, **document}
        return base + path

    yield publish
    stop()


def test_cursor(alice):
    discover()
    redirect_uris = [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "http://127.0.0.1:33418/callback",
        "https://cursor.com/oauth/callback",
    ]
    client_id = register(**public_client("Cursor", redirect_uris, application_type="web"))
    redirect_uri = redirect_uris[0]  # its own scheme
    text, answer, verifier = consent(signed_in(alice), client_id, redirect_uri, resource=MCP)
    assert "Cursor" in text and "That is an app on this computer." in text
    tokens = redeem(client_id, answer, redirect_uri, verifier, resource=MCP)
    assert whoami_with_a_handshake(tokens["access_token"], "2025-06-18")["user"]["username"] == "alice"


def test_vs_code(alice, metadata_documents):
    discover()
    client_id = metadata_documents(
        "/oauth/client-metadata.json",
        public_client(
            "Visual Studio Code",
            ["http://127.0.0.1:33418/", "https://vscode.dev/redirect"],
            client_uri="https://code.visualstudio.com",
            application_type="native",
        ),
    )
    redirect_uri = "http://127.0.0.1:51234/"  # 33418 was busy: any loopback port (RFC 8252 section 7.3)
    text, answer, verifier = consent(signed_in(alice), client_id, redirect_uri, scope="read write", resource=MCP)
    assert "Visual Studio Code" in text
    tokens = redeem(client_id, answer, redirect_uri, verifier, resource=MCP)
    assert whoami_with_a_handshake(tokens["access_token"], "2025-11-25")["user"]["username"] == "alice"

    # The same person on vscode.dev, the web build.
    _, answer, verifier = consent(signed_in(alice), client_id, "https://vscode.dev/redirect", resource=MCP)
    assert redeem(client_id, answer, "https://vscode.dev/redirect", verifier)["access_token"]


def test_claude_code(alice):
    # It reads the metadata at the path-suffixed URL, and the root one too.
    discover("/.well-known/oauth-protected-resource/mcp")
    assert Client().get("/.well-known/oauth-protected-resource").status_code == 200
    redirect_uri = "http://localhost:54545/callback"
    client_id = register(**public_client("Claude Code (ltm)", [redirect_uri]))
    _, answer, verifier = consent(signed_in(alice), client_id, redirect_uri)
    tokens = redeem(client_id, answer, redirect_uri, verifier)  # no resource either
    assert whoami_with_a_handshake(tokens["access_token"], "2025-06-18")["user"]["username"] == "alice"
    # Without `resource`, the token is still for /mcp only.
    stored = get_access_token_model().objects.get(application__client_id=client_id, user=alice)
    assert stored.resource == [MCP]
    refused = Client().get("/v1/packets", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}")
    assert refused.status_code == 401


def test_claude_code_by_its_metadata_document(alice, metadata_documents):
    discover("/.well-known/oauth-protected-resource/mcp")
    client_id = metadata_documents(
        "/oauth/claude-code-client-metadata",
        public_client("Claude Code", ["http://localhost/callback", "http://127.0.0.1/callback"]),
    )
    redirect_uri = "http://localhost:61000/callback"  # the port it listens on this time
    text, answer, verifier = consent(signed_in(alice), client_id, redirect_uri)
    assert "Claude Code" in text
    tokens = redeem(client_id, answer, redirect_uri, verifier)
    assert whoami_with_a_handshake(tokens["access_token"], "2025-11-25")["user"]["username"] == "alice"


def test_chatgpt(alice):
    server = discover()
    assert "offline_access" in server["scopes_supported"]
    redirect_uri = "https://chatgpt.com/connector/oauth/c0nnect0r-1d"
    scope = "read write offline_access"
    client_id = register(**public_client("ChatGPT", [redirect_uri], scope=scope))
    text, answer, verifier = consent(signed_in(alice), client_id, redirect_uri, scope=scope, resource=MCP)
    assert "chatgpt.com" in text and "That is an app on this computer." not in text
    assert "offline_access" in text
    tokens = redeem(client_id, answer, redirect_uri, verifier, resource=MCP)
    assert set(tokens["scope"].split()) == {"read", "write", "offline_access"}
    assert whoami_with_a_handshake(tokens["access_token"], "2025-06-18")["user"]["username"] == "alice"
    renewed = token_request(grant_type="refresh_token", client_id=client_id, refresh_token=tokens["refresh_token"])
    assert whoami_with_a_handshake(renewed["access_token"], "2025-06-18")["user"]["username"] == "alice"


def test_an_mcp_2026_07_28_client(alice, metadata_documents):
    server = discover()
    assert server["client_id_metadata_document_supported"] is True  # registration is the old way
    assert server["authorization_response_iss_parameter_supported"] is True
    redirect_uri = "http://127.0.0.1:47010/callback"
    client_id = metadata_documents(
        "/agent.json",
        public_client("Stateless Agent", [redirect_uri], grant_types=["authorization_code"]),
    )
    _, answer, verifier = consent(signed_in(alice), client_id, redirect_uri, resource=MCP)
    assert answer["iss"] == server["issuer"]  # the client checks it before using the code
    tokens = redeem(client_id, answer, redirect_uri, verifier, resource=MCP)
    assert whoami_stateless(tokens["access_token"])["user"]["username"] == "alice"
    # The handshake revisions keep working beside it, with the same token.
    assert whoami_with_a_handshake(tokens["access_token"], "2025-11-25")["user"]["username"] == "alice"
