"""What the hub reads off a request beyond Django's own accessors."""

from django.conf import settings


def client_address(request) -> str:
    """The caller's IP: behind a trusted proxy, the address the proxy saw (the last hop it added)."""
    if settings.LTM_TRUST_PROXY_HEADERS:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    return request.META.get("REMOTE_ADDR", "") or "unknown"
