"""The hub's Ed25519 keys and the packet's detached signature.

A key is published as an OKP JSON Web Key (RFC 8037) whose `kid` is its RFC 7638 thumbprint, so
any implementation derives the same id from the key alone. A packet is signed over its RFC 8785
canonical JSON (rfc8785): the packet itself stays a valid packet, the signature travels beside it.
"""

import base64
import functools
import hashlib
import json
import re

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

ALG = "ed25519"
PEM_BLOCK = re.compile(r"-----BEGIN PRIVATE KEY-----.+?-----END PRIVATE KEY-----", re.S)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*", text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def raw_public(key: ed25519.Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def jwk(public: ed25519.Ed25519PublicKey) -> dict:
    """The public key as published: {"kid", "kty": "OKP", "crv": "Ed25519", "x"}."""
    x = b64url(raw_public(public))
    # RFC 7638: the required members in lexicographic order, no whitespace.
    thumbprint = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": x}, separators=(",", ":"), sort_keys=True)
    return {"kid": b64url(hashlib.sha256(thumbprint.encode()).digest()), "kty": "OKP", "crv": "Ed25519", "x": x}


def public_from_jwk(entry: dict) -> ed25519.Ed25519PublicKey:
    """The Ed25519 public key of a published entry; ValueError when it is not one."""
    if not isinstance(entry, dict) or entry.get("kty") != "OKP" or entry.get("crv") != "Ed25519":
        raise ValueError("not an Ed25519 key")
    raw = b64url_decode(entry.get("x"))
    if len(raw) != 32:
        raise ValueError("an Ed25519 key is 32 bytes")
    return ed25519.Ed25519PublicKey.from_public_bytes(raw)


@functools.cache
def _loaded(pem: str) -> tuple:
    keys = []
    for block in PEM_BLOCK.findall(pem):
        key = serialization.load_pem_private_key(block.encode(), password=None)
        if not isinstance(key, ed25519.Ed25519PrivateKey):
            raise ImproperlyConfigured("LTM_HUB_KEY holds a key that is not Ed25519")
        keys.append(key)
    return tuple(keys)


def hub_keys() -> tuple:
    """The hub's private keys, the signing one first; empty without LTM_HUB_KEY."""
    return _loaded(settings.LTM_HUB_KEY)


def key_pair(pem: str) -> tuple[str, ed25519.Ed25519PrivateKey]:
    """(kid, key) of the first key in `pem`."""
    key = _loaded(pem)[0]
    return jwk(key.public_key())["kid"], key


def signing_key() -> tuple[str, ed25519.Ed25519PrivateKey]:
    """(kid, key) of the key that signs; ImproperlyConfigured without one."""
    if not hub_keys():
        raise ImproperlyConfigured("federation needs the hub's key: set LTM_HUB_KEY (an Ed25519 private key in PEM)")
    return key_pair(settings.LTM_HUB_KEY)


def published() -> list[dict]:
    return [jwk(key.public_key()) for key in hub_keys()]


def canonical(packet: dict) -> bytes:
    return rfc8785.dumps(packet)


def packet_sign(packet: dict, pem: str | None = None) -> dict:
    """The detached signature of `packet`: {"kid", "alg": "ed25519", "sig"} (sig in base64url), by
    the hub's signing key or the first of `pem`."""
    kid, key = key_pair(pem) if pem else signing_key()
    return {"kid": kid, "alg": ALG, "sig": b64url(key.sign(canonical(packet)))}


def packet_signature_valid(packet: dict, signature, public: ed25519.Ed25519PublicKey) -> bool:
    try:
        public.verify(b64url_decode(signature["sig"]), canonical(packet))
    except (InvalidSignature, ValueError, TypeError, KeyError, rfc8785.CanonicalizationError):
        return False
    return True


def new_key_pem() -> str:
    """A fresh Ed25519 private key in PEM (`manage.py ltm_hub_key`, the tests)."""
    key = ed25519.Ed25519PrivateKey.generate()
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
