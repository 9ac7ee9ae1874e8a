"""Which redirect URIs a client may register, and which schemes the toolkit may then redirect to.

Clients that sign themselves in (MCP clients reaching /mcp) use the authorization code with PKCE
S256, registered by Dynamic Client Registration (RFC 7591) or by a Client ID Metadata Document.
The toolkit does the flow; its redirect URI rule allows a scheme everywhere or nowhere, so "http"
is in ALLOWED_REDIRECT_URI_SCHEMES and this module is the hub's rule:

- `redirect_uri_problem`: https, plain http only on a loopback address (RFC 8252 section 7.3), or
  an app's own private-use scheme (section 7.1). Both ways of registering check every URI with it
  first, and an application's private-use schemes are allowed for that application only
  (`application_redirect_schemes`).
- redirect URIs that open a browser at a web address (`opens_a_browser`: googlechrome://,
  x-safari-https://, intent://, ...) are refused as well: they would pass for an app's own.
"""

import ipaddress
import re
import string
from urllib.parse import urlsplit

from oauth2_provider.settings import oauth2_settings


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
