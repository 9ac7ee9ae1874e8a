"""Who this hub is to other hubs, who they are to it, and whether it talks to them.

A person on another hub is an address, `username@host[:port]`; a hub is its host (and port), and
its origin is https there, or http for the hosts the operator lists for development
(LTM_FEDERATION_ALLOW_HOSTS). The federation setting and the blocks are read here only."""

import ipaddress
import re
from urllib.parse import urlsplit

from django.conf import settings

from core.errors import BadRequest, Forbidden
from federation.models import Peer

HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?")
USERNAME = re.compile(r"[\w.@+-]{1,150}")
OFF = "federation is off on this hub (LTM_FEDERATION=off)"


def address_parts(address) -> tuple[str, str]:
    """(username, host) of `username@host[:port]`; BadRequest saying what is wrong."""
    if not isinstance(address, str) or "@" not in address:
        raise BadRequest("an address on another hub is username@host, e.g. bob@hub-b.example")
    username, host = address.strip().rsplit("@", 1)
    host = normal_host(host)
    if not USERNAME.fullmatch(username) or host is None:
        raise BadRequest(f"{address.strip()[:200]!r} is not an address on another hub (username@host[:port])")
    return username, host


def normal_host(text: str) -> str | None:
    """`host[:port]` in lower case without the default port, or None when it is not one."""
    text = (text or "").strip().lower().rstrip("/")
    if "://" in text:
        text = urlsplit(text).netloc
    if text.endswith(":443"):
        text = text[:-4]
    if not HOST.fullmatch(text) or (":" in text and not 0 < int(text.rsplit(":", 1)[1]) < 65536):
        return None
    return text


def is_address(text) -> bool:
    try:
        address_parts(text)
    except BadRequest:
        return False
    return True


def own_url() -> str:
    """This hub's public base URL (LTM_EXTERNAL_URL); federation needs it: other hubs call it."""
    if not settings.LTM_EXTERNAL_URL:
        raise Forbidden("federation needs the hub's public URL: set LTM_EXTERNAL_URL")
    return settings.LTM_EXTERNAL_URL


def own_host() -> str:
    return normal_host(own_url())


def _dev_listed(hostname: str) -> bool:
    for entry in settings.LTM_FEDERATION_ALLOW_HOSTS:
        entry = entry.strip().lower()
        try:
            if ipaddress.ip_address(hostname) in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            if hostname == entry:
                return True
    return False


def origin(host: str) -> str:
    """The origin of the hub at `host`: https, or http for a host listed for development."""
    hostname = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return f"{'http' if _dev_listed(hostname) else 'https'}://{host}"


def _hosts(entries) -> set[str]:
    return {host for host in map(normal_host, entries) if host}


def refusal(host: str) -> str | None:
    """Why this hub does not talk to the hub at `host`, or None when it does."""
    if settings.LTM_FEDERATION == "off":
        return OFF
    if host in _hosts(settings.LTM_FEDERATION_BLOCK) or Peer.objects.filter(host=host, blocked=True).exists():
        return f"the hub {host} is blocked on this hub"
    if settings.LTM_FEDERATION == "allowlist" and host not in _hosts(settings.LTM_FEDERATION_PEERS):
        return f"the hub {host} is not among this hub's peers (LTM_FEDERATION=allowlist, LTM_FEDERATION_PEERS)"
    return None


def allowed(host: str) -> None:
    """Forbidden (403) naming the setting when this hub does not talk to the hub at `host`."""
    if reason := refusal(host):
        raise Forbidden(reason)


def outbound_hosts() -> tuple[str, ...]:
    """What the outbound guard may reach although private or loopback."""
    return tuple(settings.LTM_FEDERATION_ALLOW_HOSTS)
