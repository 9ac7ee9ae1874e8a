"""Builders for tests of the OAuth server and of every app above it: the device flow's HTTP calls
made as the `ltm` client makes them (form-encoded, the same fields), grants and access tokens; and
an https server on 127.0.0.1 with a certificate of its own, serving JSON documents: where the
tests publish an MCP client's metadata document (its client_id is the document's URL), which the
hub fetches as it would fetch one on the internet (settings.CIMD_LOOPBACK_CA_FILE names the CA)."""

import base64
import datetime
import hashlib
import importlib
import ipaddress
import json
import secrets
import ssl
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from django.apps import apps
from django.db.models import F
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_device_grant_model

from accounts.testing import FORM
from oauth import services
from oauth.device_flow import device_code_digest

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def form_post(client, path, fields, content_type=FORM):
    return client.post(path, data=urlencode(fields), content_type=content_type)


def authorize_device(client, client_id="ltm-cli", scope="read write"):
    fields = {"client_id": client_id}
    if scope is not None:
        fields["scope"] = scope
    return form_post(client, "/oauth/authorize_device", fields)


def poll(client, device_code, client_id="ltm-cli"):
    return form_post(
        client, "/oauth/token", {"grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": client_id}
    )


def _grants(device_code):
    """The grant of a device_code, given as the client holds it or as the table keeps it
    (`grant.device_code`, its digest)."""
    return get_device_grant_model().objects.filter(device_code__in=[device_code_digest(device_code), device_code])


def grant_of(device_code):
    return _grants(device_code).get()


def let_interval_pass(device_code, seconds=None):
    """As if the client had waited its interval since its last poll (moves the grant's clock)."""
    grant = grant_of(device_code)
    step = timedelta(seconds=seconds if seconds is not None else grant.interval)
    get_device_grant_model().objects.filter(pk=grant.pk).update(last_checked=F("last_checked") - step)


def expire(device_code):
    _grants(device_code).update(expires=F("expires") - timedelta(minutes=11))


def device_token(client, user, scope="read write") -> str:
    """A token through the whole device flow, approved by `user`."""
    started = authorize_device(client, scope=scope).json()
    code = grant_of(started["device_code"]).user_code
    services.device_grant_decide(actor=user, address="127.0.0.1", raw_code=code, approve=True)
    response = poll(client, started["device_code"])
    assert response.status_code == 200, response.content
    return response.json()["access_token"]


def ensure_cli_application():
    """The live server's tests flush the database after each test, and with it the `ltm-cli`
    row the migrations made: put it back with the migration's own code."""
    migration = importlib.import_module("accounts.migrations.0002_ltm_cli_application")
    migration.create_cli_application(apps, None)


def make_grant(*, status=None, user_code="BCDFGHJK", device_code="device-code", client_id="ltm-cli", expires_in=None):
    """A device grant of the `ltm-cli` client, stored directly (pending unless `status` says
    otherwise; ten minutes to live unless `expires_in`). The table keeps the digest of
    `device_code`, as for every grant; a client redeems it with `device_code` itself."""
    model = get_device_grant_model()
    return model.objects.create(
        client_id=client_id,
        device_code=device_code,
        user_code=user_code,
        status=status or model.AUTHORIZATION_PENDING,
        expires=timezone.now() + (expires_in if expires_in is not None else timedelta(minutes=10)),
    )


def make_access_token(user, token="device-token-value", scope="read write"):
    """A device's OAuth access token of `user` (as the device flow leaves it), stored directly."""
    application = get_application_model().objects.get(client_id="ltm-cli")
    return get_access_token_model().objects.create(
        user=user,
        application=application,
        token=token,
        scope=scope,
        expires=timezone.now() + timedelta(days=30),
    )


# A client that signs itself in (the authorization code grant with PKCE) for /mcp.
MCP = "http://testserver/mcp"
LOOPBACK = "http://127.0.0.1:47123/callback"


def pkce():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def register(client=None, **metadata):
    body = {
        "client_name": "Test Agent",
        "redirect_uris": [LOOPBACK],
        "grant_types": ["authorization_code"],
        "token_endpoint_auth_method": "none",
        **metadata,
    }
    return (client or Client()).post("/oauth/register", data=json.dumps(body), content_type="application/json")


def authorize_query(client_id, challenge, *, resource=MCP, redirect_uri=LOOPBACK, method="S256"):
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": "read write",
        "state": "st4te",
        "code_challenge": challenge,
        "code_challenge_method": method,
    }
    if resource:
        params["resource"] = resource
    return "/oauth/authorize?" + urlencode(params)


def approve(browser, client_id, challenge, **options):
    """The person allows on the consent page: the redirect's query parameters."""
    page = browser.get(authorize_query(client_id, challenge, **options))
    assert page.status_code == 200, page.content
    form = {field: page.context["form"][field].value() or "" for field in page.context["form"].fields}
    answer = browser.post("/oauth/authorize", {**form, "allow": "on"})
    assert answer.status_code == 302, answer.content
    return parse_qs(urlsplit(answer["Location"]).query)


def exchange(client_id, code, verifier, *, resource=MCP):
    fields = {
        "grant_type": "authorization_code",
        "client_id": client_id,
        "code": code,
        "redirect_uri": LOOPBACK,
        "code_verifier": verifier,
    }
    if resource:
        fields["resource"] = resource
    return Client().post("/oauth/token", urlencode(fields), content_type="application/x-www-form-urlencoded")


def refresh(client_id, refresh_token):
    """A client's refresh at the token endpoint."""
    fields = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id}
    return Client().post("/oauth/token", urlencode(fields), content_type=FORM)


def tls_loopback_server(tmp_path, documents):
    """An https server on 127.0.0.1 with a certificate of its own; (base URL, CA file, stop)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )

    class Documents(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(documents(self.path)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Documents)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"https://127.0.0.1:{server.server_address[1]}", str(cert_file), server.shutdown


# The hub as an OpenID Connect provider: a relying party registered by the operator (the admin).

RELYING_PARTY_CALLBACK = "https://rp.example/accounts/oidc/sso/login/callback/"


def relying_party(*, redirect_uri=RELYING_PARTY_CALLBACK, name="Wiki"):
    """(application, client secret) of a confidential client that signs people in with the hub:
    authorization code, ID tokens signed RS256, as an operator sets one up in the admin."""
    secret = "rp-secret-" + "x" * 30
    application = get_application_model().objects.create(
        name=name,
        client_id="wiki",
        client_secret=secret,
        client_type="confidential",
        authorization_grant_type="authorization-code",
        redirect_uris=redirect_uri,
        algorithm="RS256",
    )
    return application, secret


def sign_in_query(client_id, challenge, *, scope="openid profile email", redirect_uri=RELYING_PARTY_CALLBACK):
    """The authorization request of a relying party signing someone in (PKCE S256)."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": scope,
        "state": "st4te",
        "nonce": "n0nce",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    return "/oauth/authorize?" + urlencode(params)
