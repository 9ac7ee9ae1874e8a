"""Which redirect URIs a client may register (oauth.redirect_uris.redirect_uri_problem), by every way
of registering: POST /oauth/register, PUT /oauth/register/<client_id> and a client metadata
document. https anywhere; http only on a loopback address, any port (RFC 8252 section 7.3); an
app's own private-use scheme (section 7.1) that is not one the browser or a network handles; no
whitespace or other character a URI cannot hold, no fragment, no user name or password."""

import base64
import hashlib
import json
import secrets
from urllib.parse import urlencode, urlsplit

import pytest
from django.test import Client
from oauth2_provider.models import get_application_model, get_grant_model

from core.testing import signed_in
from oauth.testing import tls_loopback_server

CURSOR = {
    "client_name": "Cursor",
    "redirect_uris": [
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "http://127.0.0.1:33418/callback",
        "https://cursor.com/oauth/callback",
    ],
    "grant_types": ["authorization_code", "refresh_token"],
    "response_types": ["code"],
    "token_endpoint_auth_method": "none",
    "application_type": "web",
}
# The whitespace finding: the toolkit splits redirect_uris on whitespace, so this one value
# registered two URIs, the second over plain http to another host.
SMUGGLED = "https://ok.example/cb http://evil.example/cb"


def register(redirect_uris, **metadata):
    body = {"client_name": "agent", "token_endpoint_auth_method": "none", **metadata, "redirect_uris": redirect_uris}
    return Client().post("/oauth/register", json.dumps(body), content_type="application/json")


def assert_refused(response, uri):
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["error"] == "invalid_redirect_uri"
    assert repr(uri) in body["error_description"], body  # it names the URI


@pytest.mark.parametrize(
    "uri",
    [
        "https://vscode.dev/redirect",
        "https://chatgpt.com/connector/oauth/abc123",
        "http://127.0.0.1:33418/callback",
        "http://127.8.9.10/cb",
        "http://[::1]:8080/cb",
        "http://localhost:54545/callback",
        "cursor://anysphere.cursor-mcp/oauth/callback",
        "com.example.app:/oauth2redirect/example-provider",
        "https://agent.example/cb?tenant=a%20b",
    ],
)
def test_these_redirect_uris_register(db, uri):
    response = register([uri])
    assert response.status_code == 201, response.content
    assert response.json()["redirect_uris"] == [uri]


@pytest.mark.parametrize(
    "uri",
    [
        # Whitespace, control characters and other text that a URI cannot hold.
        SMUGGLED,
        "https://ok.example/cb\thttp://evil.example/cb",
        "https://ok.example/cb\nhttp://evil.example/cb",
        "https://ok.example/cb\u00a0http://evil.example/cb",  # a no-break space, which str.split() also splits on
        "https://ok.example/c\x01b",
        "https://ok.example/\u00e9",
        "https://ok.example/<script>",
        "https://ok.example/%zz",
        # Schemes, hosts and parts that a redirect URI may not have.
        "http://evil.example/cb",  # plain http off this computer
        "http://127.0.0.1.evil.example/cb",
        "https:/no-host",
        "javascript:alert(1)",
        "javascript://ok.example/%0aalert(1)",
        "data:text/html,%3Cb%3Ehi%3C/b%3E",
        "file:///etc/passwd",
        "ftp://files.example/cb",
        "ws://socket.example/cb",
        "wss://socket.example/cb",
        "vbscript:/msgbox",
        "cursor:",  # a private-use URI needs a path: cursor://... or com.example.app:/...
        "localhost:8080/callback",  # no scheme at all, "localhost" read as one
        "/relative/callback",
        "https://ok.example/cb#fragment",
        "https://user:secret@ok.example/cb",
        "https://ok.example@evil.example/cb",
    ],
)
def test_these_redirect_uris_are_refused(db, uri):
    assert_refused(register([uri]), uri)
    assert not get_application_model().objects.filter(name="agent").exists()


# Schemes through which the browser ends up at a web address: they would pass as "an app on this
# computer" while the code goes to evil.example.
BROWSER_SCHEME_URIS = [
    "googlechrome://evil.example/cb",
    "googlechromes://evil.example/cb",
    "GoogleChrome://evil.example/cb",
    "x-safari-https://evil.example/cb",
    "x-safari-http://evil.example/cb",
    "microsoft-edge://evil.example/cb",
    "microsoft-edge-https://evil.example/cb",
    "firefox://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
    "opera-https://evil.example/cb",
    "touch-https://evil.example/cb",
    "brave://open-url?url=https%3A%2F%2Fevil.example%2Fcb",
    "intent://evil.example/cb",
    "x-web-search://?evil.example",
    "web+evil://evil.example/cb",
    "irc://evil.example/cb",
    "mailto://evil.example/cb",
]


@pytest.mark.parametrize("uri", BROWSER_SCHEME_URIS)
def test_schemes_that_open_a_browser_are_refused(db, uri):
    response = register([uri])
    assert_refused(response, uri)
    assert "opens a web browser at an address" in response.json()["error_description"]
    assert not get_application_model().objects.filter(name="agent").exists()


def test_one_refused_uri_refuses_the_whole_registration(db):
    assert_refused(register(["https://ok.example/cb", "ftp://files.example/cb"]), "ftp://files.example/cb")


def test_cursors_registration_is_accepted_whole(db):
    response = Client().post("/oauth/register", json.dumps(CURSOR), content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["redirect_uris"] == CURSOR["redirect_uris"]


def _pkce():
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _consent(browser, client_id, redirect_uri, challenge):
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect_uri,
            "state": "s",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
        }
    )
    return browser.get("/oauth/authorize?" + query)


def test_a_registered_private_use_uri_receives_the_code_through_authorize(alice):
    client_id = (
        Client().post("/oauth/register", json.dumps(CURSOR), content_type="application/json").json()["client_id"]
    )
    redirect_uri = CURSOR["redirect_uris"][0]
    verifier, challenge = _pkce()
    browser = signed_in(alice)
    page = _consent(browser, client_id, redirect_uri, challenge)
    assert page.status_code == 200, page.content
    form = {name: page.context["form"][name].value() or "" for name in page.context["form"].fields}
    answer = browser.post("/oauth/authorize", {**form, "allow": "on"})
    assert answer.status_code == 302, answer.content
    assert answer["Location"].startswith(redirect_uri + "?code=")
    code = dict(part.split("=", 1) for part in urlsplit(answer["Location"]).query.split("&"))["code"]
    token = Client().post(
        "/oauth/token",
        urlencode(
            {
                "grant_type": "authorization_code",
                "client_id": client_id,
                "code": code,
                "redirect_uri": redirect_uri,
                "code_verifier": verifier,
            }
        ),
        content_type="application/x-www-form-urlencoded",
    )
    assert token.status_code == 200, token.content


def test_a_private_use_scheme_is_allowed_only_for_the_application_that_registered_it(db):
    Application = get_application_model()
    cursor = Application(redirect_uris=" ".join(CURSOR["redirect_uris"]))
    other = Application(redirect_uris="https://agent.example/cb")
    assert "cursor" in cursor.get_allowed_schemes()
    assert "cursor" not in other.get_allowed_schemes()
    # An application made by other means (the admin) with a URI our rule refuses gains nothing.
    assert "javascript" not in Application(redirect_uris="javascript://x/%0aalert(1)").get_allowed_schemes()


def _registered():
    response = register(["https://ok.example/cb"])
    assert response.status_code == 201
    return response.json()


@pytest.mark.parametrize(
    "uri", [SMUGGLED, "javascript:alert(1)", "https://ok.example/cb#x", "googlechrome://evil.example/cb"]
)
def test_an_update_of_the_registration_is_held_to_the_same_rule(db, uri):
    registered = _registered()
    response = Client().put(
        f"/oauth/register/{registered['client_id']}",
        json.dumps({"client_name": "agent", "token_endpoint_auth_method": "none", "redirect_uris": [uri]}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {registered['registration_access_token']}",
    )
    assert_refused(response, uri)
    app = get_application_model().objects.get(client_id=registered["client_id"])
    assert app.redirect_uris == "https://ok.example/cb"


@pytest.fixture
def metadata_document(tmp_path, settings):
    """A client metadata document served over TLS on the loopback address, which the hub trusts;
    yields a function that publishes one and returns its URL, the client_id."""
    published = {}
    base, ca_file, stop = tls_loopback_server(tmp_path, lambda path: published[path])
    settings.CIMD_LOOPBACK_CA_FILE = ca_file

    def publish(redirect_uris, client_name="Doc Agent"):
        published["/client.json"] = {
            "client_id": base + "/client.json",
            "client_name": client_name,
            "redirect_uris": redirect_uris,
            "token_endpoint_auth_method": "none",
        }
        return base + "/client.json"

    yield publish
    stop()


def test_a_metadata_document_with_a_smuggled_uri_is_an_unknown_client(alice, metadata_document):
    client_id = metadata_document([SMUGGLED])
    _, challenge = _pkce()
    page = _consent(signed_in(alice), client_id, "http://evil.example/cb", challenge)
    assert page.status_code == 400
    assert not get_application_model().objects.filter(client_id=client_id).exists()


def test_a_metadata_document_with_good_uris_is_a_client(alice, metadata_document):
    client_id = metadata_document(["https://ok.example/cb"])
    _, challenge = _pkce()
    page = _consent(signed_in(alice), client_id, "https://ok.example/cb", challenge)
    assert page.status_code == 200, page.content


def test_a_metadata_document_with_a_browser_scheme_is_an_unknown_client(alice, metadata_document):
    client_id = metadata_document(["googlechrome://evil.example/cb"])
    _, challenge = _pkce()
    page = _consent(signed_in(alice), client_id, "googlechrome://evil.example/cb", challenge)
    assert page.status_code == 400
    assert not get_application_model().objects.filter(client_id=client_id).exists()


def test_a_metadata_document_with_the_name_of_the_hubs_own_client_is_an_unknown_client(alice, metadata_document):
    client_id = metadata_document(["https://ok.example/cb"], client_name="LTM command-line client")
    _, challenge = _pkce()
    page = _consent(signed_in(alice), client_id, "https://ok.example/cb", challenge)
    assert page.status_code == 400
    assert not get_application_model().objects.filter(client_id=client_id).exists()


def _registered_before(redirect_uri):
    """An application whose redirect URI registration accepted before the rule refused it."""
    Application = get_application_model()
    return Application.objects.create(
        name="Browser Agent",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        registration_source=Application.RegistrationSource.DCR,
        redirect_uris=redirect_uri,
        client_secret="",
        hash_client_secret=False,
    )


@pytest.mark.parametrize("uri", ["googlechrome://evil.example/cb", "x-safari-https://evil.example/cb"])
def test_authorize_tells_the_person_and_never_sends_them_to_a_browser_scheme(alice, uri):
    client_id = _registered_before(uri).client_id
    _, challenge = _pkce()
    browser = signed_in(alice)
    page = _consent(browser, client_id, uri, challenge)
    assert page.status_code == 400, page.content
    text = page.content.decode()
    assert "This app cannot connect" in text and "opens a web browser at an address" in text
    assert "That is an app on this computer" not in text
    # Nor through the form, sent as the page would have sent it.
    allowed = browser.post(
        "/oauth/authorize",
        {
            "client_id": client_id,
            "redirect_uri": uri,
            "response_type": "code",
            "state": "s",
            "scope": "read write",
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "allow": "on",
        },
    )
    assert allowed.status_code == 400
    assert not allowed.has_header("Location")
    assert not get_grant_model().objects.exists()
