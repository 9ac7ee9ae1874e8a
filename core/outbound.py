"""The one way the hub calls another server (webhooks, federation): `post` and `get`.

- http and https only, no user name or password in the URL;
- the host is resolved when the call is made, and every address it resolves to must be public:
  loopback, private, link-local, multicast, reserved and unspecified addresses are refused, in
  IPv4 and IPv6 and in the IPv6 forms that carry an IPv4 address (IPv4-mapped, 6to4, Teredo,
  NAT64), unless the operator lists the host (by name, or its address or network) in the
  caller's allow list;
- the connection goes to the address that was checked (SNI, the certificate check and the Host
  header still name the host), so a DNS answer that changes between the check and the connection
  cannot move it elsewhere;
- no redirect is followed, one deadline bounds the whole call, and at most `max_response_bytes`
  of the answer are read.

django-oauth-toolkit's fetcher of client metadata documents (oauth2_provider.cimd) works the same
way for its GETs; its helpers are private, so the hub keeps its own here.
"""

import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import urllib3

# The IPv6 prefix of NAT64 (RFC 6052): its low 32 bits are an IPv4 address.
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# The kinds of address refused, most telling first (169.254.169.254 is link-local and private).
KINDS_REFUSED = {
    "loopback": "a loopback",
    "link_local": "a link-local",
    "multicast": "a multicast",
    "unspecified": "the unspecified",
    "reserved": "a reserved",
    "private": "a private",
}


class OutboundError(Exception):
    """A call that did not get an answer; the message says why, for people."""


class Refused(OutboundError):
    """The guard refused the URL or the address it resolves to: nothing was sent."""


class Failed(OutboundError):
    """The call was made but brought no answer (refused connection, TLS, timeout)."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict
    body: bytes  # at most the bytes asked for


@dataclass(frozen=True)
class Target:
    """A URL the guard let through: where to connect, and what to call the host."""

    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    authority: str  # the Host header
    path: str  # path and query


def address_problem(address: str) -> str | None:
    """Why `address` may not be called without the operator listing it, or None when it is public."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            problem = address_problem(str(embedded))
            return f"{problem} (inside the IPv6 address {ip})" if problem else None
    for kind, said in KINDS_REFUSED.items():
        if getattr(ip, f"is_{kind}"):
            return f"{ip} is {said} address"
    if not ip.is_global:
        return f"{ip} is not a public address"
    return None


def _listed(allow_hosts) -> tuple[frozenset, tuple]:
    """The allow list as names and networks."""
    names, networks = set(), []
    for entry in allow_hosts:
        entry = entry.strip().lower()
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            if entry:
                names.add(entry.rstrip("."))
    return frozenset(names), tuple(networks)


def resolve(host: str, port: int) -> list[str]:
    """The addresses of `host`, as the system resolver gives them (tests replace getaddrinfo)."""
    try:
        infos = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
        raise Refused(f"the host {host} cannot be resolved ({exc})") from None
    return list(dict.fromkeys(info[4][0] for info in infos))


def url_problem(url: str) -> str | None:
    """What is wrong with `url` as an address to call, before any lookup; None when nothing is."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a bad port raises here)
    except ValueError as exc:
        return f"the URL is not valid ({exc})"
    if parts.scheme not in ("http", "https"):
        return "the URL must start with http:// or https://"
    if not parts.hostname:
        return "the URL has no host"
    if parts.username is not None or parts.password is not None:
        return "the URL must not carry a user name or password"
    return None


def check(url: str, *, allow_hosts: tuple[str, ...] = (), only_listed: bool = False) -> Target:
    """Resolve `url`'s host and check every address (see the module's docstring); Refused says
    why not. `only_listed`: the operator allows no host but those listed."""
    problem = url_problem(url)
    if problem:
        raise Refused(problem)
    parts = urlsplit(url)
    host = parts.hostname.rstrip(".")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    names, networks = _listed(allow_hosts)
    named = host in names
    if only_listed and not named and not _literal_in(host, networks):
        raise Refused(f"this hub calls only the hosts its operator lists, and {host} is not one of them")
    addresses = resolve(host, port)
    if not addresses:
        raise Refused(f"the host {host} has no address")
    for address in addresses:
        if named or any(ipaddress.ip_address(address.split("%", 1)[0]) in net for net in networks):
            continue
        if problem := address_problem(address):
            raise Refused(f"{host} resolves to {address}, which is refused: {problem}")
    netloc = parts.netloc.rsplit("@", 1)[-1]
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme, host, port, tuple(addresses), netloc, path)


def _literal_in(host: str, networks) -> bool:
    try:
        return any(ipaddress.ip_address(host) in net for net in networks)
    except ValueError:
        return False


def post(
    url: str,
    *,
    body: bytes,
    headers: dict,
    timeout: float,
    max_response_bytes: int,
    allow_hosts: tuple[str, ...] = (),
    only_listed: bool = False,
) -> Answer:
    """POST `body` to `url` through the guard: the answer (any status, never a redirect
    followed), or Refused (nothing sent) or Failed (no answer within `timeout` seconds)."""
    return _call("POST", url, body, headers, timeout, max_response_bytes, allow_hosts, only_listed)


def get(
    url: str,
    *,
    headers: dict,
    timeout: float,
    max_response_bytes: int,
    allow_hosts: tuple[str, ...] = (),
    only_listed: bool = False,
) -> Answer:
    """GET `url` through the guard, as `post` does (federation reads other hubs' documents)."""
    return _call("GET", url, None, headers, timeout, max_response_bytes, allow_hosts, only_listed)


def _call(method, url, body, headers, timeout, max_response_bytes, allow_hosts, only_listed) -> Answer:
    target = check(url, allow_hosts=allow_hosts, only_listed=only_listed)
    deadline = time.monotonic() + timeout
    last = None
    for address in target.addresses:
        if deadline <= time.monotonic():
            break
        try:
            return _send_to(method, target, address, body, headers, deadline, max_response_bytes)
        except (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError) as exc:
            last = exc  # nothing was sent: the next address may answer
        except urllib3.exceptions.HTTPError as exc:
            raise Failed(_said(exc, timeout)) from None
    raise Failed(_said(last, timeout))


def _send_to(
    method: str, target: Target, address: str, body: bytes | None, headers: dict, deadline: float, limit: int
) -> Answer:
    remaining = deadline - time.monotonic()
    timeouts = urllib3.Timeout(connect=remaining, read=remaining, total=remaining)
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            address,
            target.port,
            timeout=timeouts,
            retries=False,
            maxsize=1,
            ssl_context=ssl.create_default_context(),
            server_hostname=target.host,
        )
    else:
        pool = urllib3.HTTPConnectionPool(address, target.port, timeout=timeouts, retries=False, maxsize=1)
    try:
        response = pool.urlopen(
            method,
            target.path,
            body=body,
            headers={**headers, "Host": target.authority},
            redirect=False,
            preload_content=False,
        )
        try:
            kept = b""
            while len(kept) < limit and time.monotonic() < deadline:
                chunk = response.read(limit - len(kept))
                if not chunk:
                    break
                kept += chunk
            return Answer(response.status, dict(response.headers), kept[:limit])
        finally:
            response.release_conn()
    finally:
        pool.close()


def _said(exc, timeout: float) -> str:
    if isinstance(exc, urllib3.exceptions.NewConnectionError):
        return "the connection was refused or could not be made"
    if exc is None or isinstance(exc, urllib3.exceptions.TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(exc, urllib3.exceptions.SSLError):
        return f"TLS failed: {exc}"
    return f"the call failed: {exc.__class__.__name__}"
