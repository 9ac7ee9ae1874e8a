"""What the hub reads off a request beyond Django's own accessors."""

import ipaddress

from django.conf import settings

# What stands for a caller whose address cannot be read (a request made in-process, as the test
# client's force_login does): a valid address, as django-axes stores it in an address column.
UNKNOWN_ADDRESS = "0.0.0.0"


def client_address(request) -> str:
    """The caller's IP: behind a trusted proxy, the address the proxy saw (the last hop it added).
    Always a valid IP address: it keys rate limits and lockouts."""
    candidates = []
    if settings.LTM_TRUST_PROXY_HEADERS:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        candidates += forwarded[-1:]
    candidates.append(request.META.get("REMOTE_ADDR", ""))
    for candidate in candidates:
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            continue
    return UNKNOWN_ADDRESS
