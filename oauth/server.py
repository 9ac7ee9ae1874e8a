"""django-oauth-toolkit, shaped to the device flow the `ltm` client runs (protocol section 6).

We use the toolkit's endpoints, models, token issuing and hashed token storage. Where it does not
do what the contract needs, we go around it, in this module and in the two views of
oauth.api, and only there:

- `POST /oauth/authorize_device` (oauth.api.DeviceAuthorizationView): the toolkit's view and
  oauthlib's endpoint, with our server class for `expires_in` 600 (the toolkit's server always
  says 1800) and user codes from the RFC 8628 section 6.1 alphabet (the toolkit's `0-9A-V` has
  vowels and look-alikes); the verification URIs are made absolute with
  `core.links.external_url` (the toolkit only knows a fixed string); a scope outside
  `read write` is refused at once rather than at the first poll; an unknown client_id is
  `invalid_client` (401) as RFC 6749 section 5.2 says, not oauthlib's `invalid_request`;
  `application/x-www-form-urlencoded; charset=utf-8` is accepted like the bare type (oauthlib
  compares the header exactly).
- `POST /oauth/token` with the device grant (oauth.api.TokenView): the toolkit answers a
  non-standard 404 `device_not_found`, has no `slow_down`, keeps answering
  `authorization_pending` past expiry and issues a new token on every poll after approval.
  `oauth.services.device_grant_poll` decides the RFC 8628 section 3.5 answer instead, and the
  grant is claimed (one conditional UPDATE) before the toolkit issues the one token, in the same
  transaction.
- Tokens (HubOAuth2Server): no refresh token on the device grant (the client never refreshes),
  `ltm-cli` tokens live LTM_CLI_TOKEN_LIFETIME_DAYS, other clients keep the toolkit's lifetime.
  Access tokens carry the `ltm_` prefix (never a leading dash; recognisable by secret scanners).
- The verification pages (/device) are ours (oauth.views): the toolkit's match codes
  exactly, do not show the code, and have no rate limit.
"""

import ipaddress
import json
import re
import string
import unicodedata
from urllib.parse import unquote, urlsplit

import urllib3
from django.conf import settings
from oauth2_provider import cimd
from oauth2_provider.oauth2_backends import OAuthLibCore
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.settings import oauth2_settings
from oauthlib.oauth2 import DeviceAuthorizationEndpoint, Server

from accounts.services import new_token_plaintext
from oauth import device_flow, selectors, services
from oauth.models import SELF_REGISTERED_SOURCES

FORM_TYPE = "application/x-www-form-urlencoded"
# The resource (RFC 8707) that clients signing themselves in are for: the hub's MCP endpoint.
MCP_PATH = "/mcp"


# The hub's own clients (`ltm-cli`, made by a migration, or one made in the admin) and the clients
# that register themselves (Dynamic Client Registration, Client ID Metadata Documents). Only the
# hub's own use the device grant and hold tokens for /v1; a client that registered itself holds
# tokens for /mcp only, and may not take the name of one of the hub's own.


def is_self_registered(application) -> bool:
    return application is not None and application.registration_source in SELF_REGISTERED_SOURCES


def _comparable_name(name: str) -> str:
    """A client name as people read it: compatibility forms folded (NFKC), invisible format
    characters dropped, runs of whitespace made one, case ignored."""
    name = unicodedata.normalize("NFKC", name)
    name = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return " ".join(name.split()).casefold()


def client_name_problem(name) -> str | None:
    """Why a client that registers itself may not call itself `name` (None: it may): the name is
    one of the hub's own clients' (the consent and device pages show it as the client's name)."""
    if not isinstance(name, str) or not _comparable_name(name):
        return None
    if _comparable_name(name) in {_comparable_name(own) for own in selectors.own_client_names()}:
        return f"client_name {name[:100]!r} is the name of one of this hub's own clients; choose another"
    return None


def _remove_dot_segments(path: str) -> str:
    """An absolute path with its `.` and `..` segments resolved (RFC 3986 section 5.2.4)."""
    segments = path.split("/")[1:]
    output: list[str] = []
    for segment in segments:
        if segment == "..":
            if output:
                output.pop()
        elif segment != ".":
            output.append(segment)
    if segments[-1:] in (["."], [".."]):
        output.append("")
    return "/" + "/".join(output)


def _resource_key(uri) -> tuple | None:
    """(scheme, host, port, path) of a resource indicator, compared as the hub reads it: scheme
    and host in lower case, the default port made explicit, the path's percent-escapes decoded and
    its `.` and `..` segments resolved. None for what cannot be one (no scheme or host, a user
    name, a query or fragment, a bad port)."""
    if not isinstance(uri, str):
        return None
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname or "@" in parts.netloc or parts.query or "#" in uri:
        return None
    scheme = parts.scheme.lower()
    port = port or {"http": 80, "https": 443}.get(scheme)
    return scheme, unquote(parts.hostname).lower(), port, _remove_dot_segments(unquote(parts.path) or "/")


def resource_problem(resources, *, mcp_resource: str) -> str | None:
    """Why a client signing itself in may not have a token for these resources (RFC 8707; None:
    it may): each must be this hub's MCP endpoint, `mcp_resource`, once normalised (see
    `_resource_key`). The hub as a whole (its bare origin), /v1, or a path that resolves
    elsewhere (/mcp/../v1) is refused; naming none means /mcp."""
    wanted = _resource_key(mcp_resource)
    for resource in resources or ():
        key = _resource_key(resource)
        if key is None or key != wanted:
            shown = resource[:100] if isinstance(resource, str) else resource
            return (
                f"resource {shown!r} is not offered: an app that signs itself in gets a token for this "
                f"hub's MCP endpoint only, {mcp_resource}"
            )
    return None


def access_token_generator(request, refresh_token=False) -> str:
    """OAUTH2_PROVIDER["ACCESS_TOKEN_GENERATOR"]: the same shape as a personal API token."""
    return new_token_plaintext()


def _token_lifetime_seconds(request) -> int:
    client_id = getattr(request.client, "client_id", None) or request.client_id
    if client_id == device_flow.CLI_CLIENT_ID:
        return int(device_flow.cli_token_lifetime().total_seconds())
    return oauth2_settings.ACCESS_TOKEN_EXPIRE_SECONDS


class HubOAuth2Server(Server):
    """OAUTH2_PROVIDER["OAUTH2_SERVER_CLASS"]: oauthlib's server, with the token policy above."""

    def __init__(self, request_validator, *args, **kwargs):
        # The device grant's table keeps the digest of each device_code: the toolkit's step
        # before it issues a token must find the grant by the digest of what the client sends.
        kwargs["pre_token"] = [device_flow.set_user_of_grant]
        super().__init__(request_validator, *args, **kwargs)
        self.device_code_grant.refresh_token = False
        self.bearer.expires_in = _token_lifetime_seconds


class HubOAuth2Validator(OAuth2Validator):
    """OAUTH2_PROVIDER["OAUTH2_VALIDATOR_CLASS"]: the toolkit's validator, and a replayed
    authorization code revokes what its first exchange issued (RFC 6749 section 4.1.2: the
    toolkit refuses the replay but leaves those tokens working)."""

    def save_bearer_token(self, token, request, *args, **kwargs):
        super().save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type == "authorization_code":
            services.authorization_code_spend(
                code=request.code,
                application=request.client,
                access_token=token["access_token"],
                refresh_token=token.get("refresh_token"),
            )

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        """Only the grants the metadata advertises: an application made with another one (say
        client_credentials, whose token acts for no person) gets no token. The device grant is
        the hub's own clients': a client that registered itself with it (before registration
        refused that) gets no token, which would reach /v1."""
        if grant_type not in oauth2_settings.OAUTH2_GRANT_TYPES_SUPPORTED:
            return False
        if grant_type == device_flow.DEVICE_GRANT_TYPE and is_self_registered(client):
            return False
        return super().validate_grant_type(client_id, grant_type, client, request, *args, **kwargs)

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if super().validate_code(client_id, code, client, request, *args, **kwargs):
            return True
        services.authorization_code_replayed(code=code, application=client)
        return False


class HubDeviceServer(DeviceAuthorizationEndpoint):
    """The device-authorization endpoint with our code lifetime and user codes. oauthlib's
    DeviceApplicationServer (the toolkit's server class) passes no `expires_in` to this endpoint,
    so the endpoint is built here with its public arguments; the toolkit's other server kwargs
    (token lifetimes and generators, the toolkit's user codes and interval) are not for it."""

    def __init__(self, request_validator, *, verification_uri, verification_uri_complete=None, **server_kwargs):
        super().__init__(
            request_validator,
            verification_uri=verification_uri,
            expires_in=int(device_flow.DEVICE_CODE_LIFETIME.total_seconds()),
            interval=device_flow.POLL_INTERVAL,
            verification_uri_complete=verification_uri_complete,
            user_code_generator=device_flow.new_user_code,
        )


class FormTolerantOAuthLibCore(OAuthLibCore):
    """Tells oauthlib the bare form type when the request says `...; charset=utf-8`, and an empty
    one when it says none (oauthlib's device endpoint reads the header unguarded, a KeyError)."""

    def extract_headers(self, request):
        headers = super().extract_headers(request)
        content_type = headers.get("Content-Type", "")
        if content_type.split(";")[0].strip().lower() == FORM_TYPE:
            content_type = FORM_TYPE
        headers["Content-Type"] = content_type
        return headers


# Clients that sign themselves in (MCP clients reaching /mcp): authorization code with PKCE S256,
# registered by Dynamic Client Registration (RFC 7591) or by a Client ID Metadata Document. The
# toolkit does the flow, the metadata documents, `resource` (RFC 8707) and `iss` (RFC 9207); we
# add what it leaves open:
#
# - redirect URIs (`redirect_uri_problem`): https, plain http only on a loopback address (RFC
#   8252 section 7.3), or an app's own private-use scheme (section 7.1). The toolkit allows a
#   scheme everywhere or nowhere, so "http" is in ALLOWED_REDIRECT_URI_SCHEMES, both ways of
#   registering check every URI with `redirect_uri_problem` first, and an application's
#   private-use schemes are allowed for that application only (`application_redirect_schemes`).
# - redirect URIs that open a browser at a web address (`opens_a_browser`: googlechrome://,
#   x-safari-https://, intent://, ...) are refused as well: they would pass for an app's own.
# - the resource: a grant of the consent page is for the hub's /mcp and nothing else
#   (`resource_problem`, invalid_target otherwise); the bearer check holds every token of a client
#   that registered itself to /mcp, and the device grant, whose tokens reach /v1, is the hub's own
#   clients' (`is_self_registered`), as are their names (`client_name_problem`).
# - metadata documents are fetched by the toolkit's SSRF-hardened fetcher (https, public
#   addresses, timeout, size cap, cached per Cache-Control). Tests serve one over TLS on the
#   loopback address with their own certificate authority, which CIMD_LOOPBACK_CA_FILE names;
#   that setting is empty outside tests, so production never fetches from a loopback address.


def is_loopback_host(host: str | None) -> bool:
    """Whether `host` (a URL's hostname, brackets removed) is this computer: localhost or a
    loopback address (127.0.0.0/8, ::1). A name that only starts like one is not."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Schemes that are not an app's own (RFC 8252 section 7.1), so never a private-use redirect URI:
# the browser runs or shows them itself, they open files, or they carry the code over a network
# (https and loopback http have their own rule).
NOT_PRIVATE_USE_SCHEMES = frozenset(
    {
        "javascript",
        "vbscript",
        "data",
        "blob",
        "about",
        "view-source",
        "filesystem",
        "file",
        "smb",
        "https",
        "http",
        "ftp",
        "ftps",
        "sftp",
        "ws",
        "wss",
        "gopher",
        "telnet",
        "ldap",
    }
)

# Schemes that are not an app's own either, because through them the browser ends up at a web
# address: they open a browser at the address that follows (`googlechrome://evil.example/cb`,
# `intent://...`), or a web page may ask the browser to hand it their links (HTML's
# registerProtocolHandler: the safelisted schemes, and any `web+` one). Any scheme ending in
# http or https is refused too (`x-safari-https`, `opera-http`, `touch-https`), as those are how
# browsers name "open this web address".
BROWSER_SCHEMES = frozenset(
    {
        # browsers and their internal pages
        "googlechrome",
        "googlechromes",
        "chrome",
        "microsoft-edge",
        "firefox",
        "firefox-focus",
        "firefox-klar",
        "opera",
        "brave",
        "vivaldi",
        "duckduckgo",
        "ddgquicklink",
        "yandexbrowser-open-url",
        "ucbrowser",
        "intent",
        "android-app",
        # opens the browser at a search engine's page, with the code in the query
        "x-web-search",
        # registerProtocolHandler's safelist (HTML standard)
        "bitcoin",
        "cabal",
        "dat",
        "did",
        "doi",
        "dweb",
        "ethereum",
        "geo",
        "hyper",
        "im",
        "ipfs",
        "ipns",
        "irc",
        "ircs",
        "magnet",
        "mailto",
        "matrix",
        "mms",
        "news",
        "nntp",
        "openpgp4fpr",
        "sip",
        "sms",
        "smsto",
        "ssb",
        "ssh",
        "tel",
        "urn",
        "webcal",
        "wtai",
        "xmpp",
    }
)


def opens_a_browser(scheme: str) -> bool:
    """Whether links of `scheme` (lower case) end up in a web browser at a web address."""
    return scheme in BROWSER_SCHEMES or scheme.startswith("web+") or scheme.endswith(("http", "https"))


# What RFC 3986 allows in a URI: unreserved and reserved characters, and percent-encoded octets.
URI_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~" + ":/?#[]@" + "!$&'()*+,;=" + "%")
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")


def _quoted(uri: str) -> str:
    """A URI as an error message quotes it (cut: the message must stay readable)."""
    return repr(uri if len(uri) <= 100 else uri[:100] + "...")


def redirect_uri_problem(uri) -> str | None:
    """Why a client may not register this redirect URI (None: it may): https with a host; http
    on a loopback address (127.0.0.0/8, [::1], localhost), any port; or a private-use scheme
    (`cursor://...`, `com.example.app:/cb`) followed by a slash, neither in
    NOT_PRIVATE_USE_SCHEMES nor one that opens a browser (`opens_a_browser`). Only RFC 3986's
    characters, no user name or password, no fragment."""
    if not isinstance(uri, str):
        return "each redirect URI must be a string"
    # The toolkit keeps redirect URIs as one space-separated string: a space would smuggle in a
    # second URI. Control characters and other text have no place in a URI either.
    stray = next((character for character in uri if character not in URI_CHARACTERS), None)
    if stray is not None:
        return (
            f"redirect URI {_quoted(uri)} holds {stray!r}, which a URI cannot hold (RFC 3986): "
            "give one URI per array item, percent-encode anything else"
        )
    if BAD_PERCENT.search(uri):
        return f"redirect URI {_quoted(uri)} has a % not followed by two hexadecimal digits"
    if "#" in uri:
        return f"redirect URI {_quoted(uri)} must not have a fragment (#...)"  # RFC 6749 section 3.1.2
    try:
        parts = urlsplit(uri)
        host, _port = parts.hostname, parts.port  # reading the port checks it
    except ValueError:
        return f"redirect URI {_quoted(uri)} is not a URI"
    if "@" in parts.netloc:
        return f"redirect URI {_quoted(uri)} must not hold a user name or password (@)"
    if parts.scheme == "https" and host:
        return None
    if parts.scheme == "http" and is_loopback_host(host):
        return None
    if parts.scheme not in ("http", "https") and opens_a_browser(parts.scheme):
        return (
            f"redirect URI {_quoted(uri)} uses {parts.scheme}:, which opens a web browser at an address "
            "rather than an app on this computer: use https, http on a loopback address, or the app's own scheme"
        )
    after_scheme = uri[len(parts.scheme) + 1 :]
    if parts.scheme and parts.scheme not in NOT_PRIVATE_USE_SCHEMES and after_scheme.startswith("/"):
        return None
    return (
        f"redirect URI {_quoted(uri)} must use https, http on a loopback address (127.0.0.1, [::1] "
        "or localhost), or the app's own scheme (cursor://..., com.example.app:/...)"
    )


def redirect_uris_problem(uris) -> str | None:
    if not isinstance(uris, list) or not uris:
        return "redirect_uris must be a non-empty array of URIs"
    return next((problem for problem in map(redirect_uri_problem, uris) if problem), None)


def application_redirect_schemes(application) -> list[str]:
    """Application.get_allowed_schemes (set in OAuthConfig.ready): ALLOWED_REDIRECT_URI_SCHEMES,
    plus the private-use schemes of this application's own redirect URIs that our rule admits.
    The toolkit checks this list when it validates an application and before it redirects to
    the client, so `cursor://` works for Cursor and for no other application."""
    allowed = list(oauth2_settings.ALLOWED_REDIRECT_URI_SCHEMES)
    for uri in application.redirect_uris.split():
        scheme = urlsplit(uri).scheme if redirect_uri_problem(uri) is None else None
        if scheme and scheme not in allowed:
            allowed.append(scheme)
    return allowed


class HubMetadataFetcher(cimd.SafeMetadataFetcher):
    """OAUTH2_PROVIDER["CIMD_METADATA_FETCHER"]: the toolkit's fetcher, plus our redirect URI rule
    and client name rule (a document that breaks one is an unknown client), plus the tests'
    loopback server."""

    def fetch(self, client_id):
        parsed = urlsplit(client_id)
        loopback_ca = settings.CIMD_LOOPBACK_CA_FILE
        if loopback_ca and parsed.scheme == "https" and parsed.hostname == "127.0.0.1":
            metadata, max_age = self._fetch_loopback(parsed, loopback_ca)
        else:
            metadata, max_age = super().fetch(client_id)
        problem = redirect_uris_problem(metadata.get("redirect_uris")) or client_name_problem(
            metadata.get("client_name")
        )
        if problem:
            raise cimd.CIMDError(problem)
        return metadata, max_age

    def _fetch_loopback(self, parsed, ca_file):
        timeout = oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        pool = urllib3.HTTPSConnectionPool(
            "127.0.0.1",
            parsed.port or 443,
            ca_certs=ca_file,
            retries=False,
            maxsize=1,
            timeout=urllib3.Timeout(connect=timeout, read=timeout, total=timeout),
        )
        try:
            response = pool.urlopen(
                "GET",
                parsed.path + (f"?{parsed.query}" if parsed.query else ""),
                redirect=False,
                preload_content=False,
                headers={"Accept": "application/json"},
            )
            try:
                return _loopback_document(response)
            finally:
                response.release_conn()
        except urllib3.exceptions.HTTPError as exc:
            raise cimd.CIMDError(f"could not fetch client_id document: {exc}") from None
        finally:
            pool.close()


def _loopback_document(response) -> tuple[dict, int]:
    """(metadata, max_age) of the tests' loopback server's answer, read with the toolkit's limits
    (CIMD_MAX_DOCUMENT_SIZE) and kept as long as a document without Cache-Control is (the longest,
    CIMD_METADATA_MAX_AGE_SECONDS)."""
    if response.status != 200:
        raise cimd.CIMDError(f"client_id document returned HTTP {response.status}")
    media_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise cimd.CIMDError(f"client_id document is not JSON (Content-Type: {media_type!r})")
    max_size = oauth2_settings.CIMD_MAX_DOCUMENT_SIZE
    body = response.read(max_size + 1)
    if len(body) > max_size:
        raise cimd.CIMDError("client_id document exceeds the maximum allowed size")
    try:
        metadata = json.loads(body)
    except ValueError:
        raise cimd.CIMDError("client_id document is not valid JSON") from None
    if not isinstance(metadata, dict):
        raise cimd.CIMDError("client_id document must be a JSON object")
    return metadata, oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS
