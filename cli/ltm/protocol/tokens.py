"""How the client and the hub name a bearer token without showing it: the SHA-256 of its value
(what the hub stores) and the first 8 hex digits of that (what `ltm auth whoami` prints as
`token_hash8`, and what the dashboard shows on each token and device row)."""

import hashlib

HINT_LENGTH = 8


def token_checksum(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_hint(checksum: str) -> str:
    """The hint of a token, from its checksum (the hub keeps no plaintext to start from)."""
    return checksum[:HINT_LENGTH]


def token_identity(host: str, token: str) -> dict:
    """What `whoami` answers on every surface before anything the hub adds: the host and the
    token's hint."""
    return {"host": host, "token_hash8": token_hint(token_checksum(token))}
