"""The rules of the device flow (RFC 8628) as this hub runs it: user codes, lifetimes, polling.

Grant life: authorization-pending -> authorized | denied (the person decides on /device)
-> redeemed (the client got its one token). Past `expires`, a grant that was not redeemed answers
`expired_token`. `redeemed` is our own status value: django-oauth-toolkit's DeviceGrant has no
state for "token already issued", and without one a device_code could be exchanged again and
again. So is `cancelled`: the client gave up (Ctrl-C) and said so (POST /oauth/device/cancel), so
nobody may approve the code any more. The state changes are in oauth.services, the reads in
oauth.selectors.

The table keeps only the SHA-256 of each device_code (`device_code_digest`), as of a token: a
device_code read from it redeems nothing. The toolkit writes the client's code when it makes the
grant; `store_device_code_digest` (connected in oauth.apps) turns it into its digest before the
row is written, and every lookup (ours, and the toolkit's before it issues the token:
`set_user_of_grant`) goes by the digest of what the client sends.

Each grant also gets a DeviceDetails row (oauth.models): the name the client sends in the
`device_name` form field (the Python client sends its hostname; a client that sends none is named
after its User-Agent), the User-Agent, the client's version and the address that asked.
"""

import ipaddress
import re
import secrets
from datetime import timedelta

from django.conf import settings

from ltm.protocol.tokens import token_checksum

CLI_CLIENT_ID = "ltm-cli"
DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"

# RFC 8628 section 6.1: consonants only, so no words can form, and no digits, so nothing to
# confuse (0/O, 1/I/L, 5/S, 8/B).
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH = 8  # 20**8 = 2.56e10 codes (34.6 bits)

DEVICE_CODE_LIFETIME = timedelta(minutes=10)
POLL_INTERVAL = 5  # seconds, the `interval` of the authorization response
SLOW_DOWN_STEP = 5  # RFC 8628 section 3.5: the client adds 5 s on slow_down, and so do we
# A poll this much early still counts as on time (clocks and networks jitter).
POLL_GRACE = timedelta(milliseconds=500)

REDEEMED = "redeemed"
CANCELLED = "cancelled"
ALREADY_REDEEMED = "this device_code has already been exchanged for a token"


def normalize_user_code(raw: str) -> str:
    """What a person typed, as stored: upper case, without spaces and dashes."""
    return re.sub(r"[\s\-]+", "", raw or "").upper()


def format_user_code(code: str) -> str:
    """XXXX-XXXX, as the client prints it."""
    return f"{code[:4]}-{code[4:]}" if len(code) == USER_CODE_LENGTH else code


def is_well_formed_user_code(code: str) -> bool:
    return len(code) == USER_CODE_LENGTH and set(code) <= set(USER_CODE_ALPHABET)


def new_user_code() -> str:
    """A fresh user code, unique among the grants still in the table (the purge task removes
    old ones), so that a code names one grant."""
    from oauth2_provider.models import get_device_grant_model

    grants = get_device_grant_model().objects
    while True:
        code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
        if not grants.filter(user_code=code).exists():
            return code


def device_code_digest(device_code: str) -> str:
    """What the table keeps of a device_code."""
    return token_checksum(device_code)


def store_device_code_digest(sender, instance, **kwargs) -> None:
    """pre_save of the toolkit's DeviceGrant: a new grant is written with the digest of its code."""
    if instance._state.adding:
        instance.device_code = device_code_digest(instance.device_code)


def set_user_of_grant(request) -> None:
    """The toolkit's own step before it issues a token for a device_code (the person who
    approved the grant, and its scopes, onto oauthlib's request; installed by
    oauth.server.HubOAuth2Server), finding the grant by the digest of the code."""
    from oauth2_provider.models import get_device_grant_model

    grant = get_device_grant_model().objects.get(device_code=device_code_digest(request.device_code))
    request.user = grant.user
    request.scopes = grant.scope.split() if grant.scope else []


def cli_token_lifetime() -> timedelta:
    """Tokens issued to `ltm-cli` live this long: the client never refreshes."""
    return timedelta(days=settings.LTM_CLI_TOKEN_LIFETIME_DAYS)


# Who is asking: the device's name and client, from the authorization request.

DEVICE_NAME_FIELD = "device_name"
# User-Agent products of the known clients. The Go client sends Go's default User-Agent, whose
# version is Go's HTTP library's, not the client's: it is not shown as a version.
KNOWN_CLIENTS = {
    "ltm-hub-cli": ("ltm Python client", True),
    "ltm": ("ltm client", True),
    "go-http-client": ("ltm Go client", False),
}
PRODUCT = re.compile(r"^\s*([A-Za-z0-9._+-]+)(?:/([A-Za-z0-9._+-]+))?")


def printable(text: str) -> str:
    """`text` without control and formatting characters (a hostname or a User-Agent is whatever
    the machine says), with runs of spaces made one."""
    kept = "".join(ch if ch.isprintable() else " " for ch in text or "")
    return " ".join(kept.split())


def parse_user_agent(user_agent: str) -> tuple[str, str]:
    """(client label, client version) from a User-Agent such as `ltm-hub-cli/0.1.0 (python)`.
    An unknown product is named as it is; no product at all is "unknown client"."""
    match = PRODUCT.match(user_agent or "")
    if not match:
        return "unknown client", ""
    product, version = match.group(1), match.group(2) or ""
    label, has_version = KNOWN_CLIENTS.get(product.lower(), (product, True))
    return label, version if has_version else ""


def device_name(*, requested: str, user_agent: str, max_length: int) -> str:
    """The name a device gets: what it sent, else its client's label."""
    return (printable(requested) or parse_user_agent(user_agent)[0])[:max_length]


# "Another network" on the confirmation page: the browser and the device that asked for the code
# are on the same network when both are loopback, or share the /24 (IPv4) or the /48 (IPv6). An
# IPv4 address mapped into IPv6 counts as IPv4. An unknown address makes no claim either way.

NETWORK_PREFIX = {4: 24, 6: 48}


def _address(text):
    try:
        address = ipaddress.ip_address(text or "")
    except ValueError:
        return None
    if address.version == 6 and address.ipv4_mapped:
        address = address.ipv4_mapped
    return None if address.is_unspecified else address


def same_network(first: str, second: str) -> bool | None:
    """True or False as described above; None when either address is unknown."""
    a, b = _address(first), _address(second)
    if a is None or b is None:
        return None
    if a.is_loopback or b.is_loopback:
        return a.is_loopback and b.is_loopback
    if a.version != b.version:
        return False
    prefix = NETWORK_PREFIX[a.version]
    return ipaddress.ip_network(f"{a}/{prefix}", strict=False) == ipaddress.ip_network(f"{b}/{prefix}", strict=False)
