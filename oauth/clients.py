"""What a client that signs itself in may call itself, which resources it may get a token for, and
how its Client ID Metadata Document is fetched.

- the resource: a grant of the consent page is for the hub's /mcp and nothing else
  (`resource_problem`, invalid_target otherwise); the bearer check holds every token of a client
  that registered itself to /mcp, and the device grant, whose tokens reach /v1, is the hub's own
  clients' (oauth.server.is_self_registered), as are their names (`client_name_problem`).
- metadata documents are fetched by the toolkit's SSRF-hardened fetcher (https, public addresses,
  timeout, size cap, cached per Cache-Control). Tests serve one over TLS on the loopback address
  with their own certificate authority, which CIMD_LOOPBACK_CA_FILE names; that setting is empty
  outside tests, so production never fetches from a loopback address.
"""

import json
import unicodedata
from urllib.parse import unquote, urlsplit

import urllib3
from django.conf import settings
from oauth2_provider import cimd
from oauth2_provider.settings import oauth2_settings

from oauth import selectors
from oauth.redirect_uris import redirect_uris_problem


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
