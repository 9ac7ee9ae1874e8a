"""A webhook's secret: made, kept encrypted, and used to sign with the `standardwebhooks` library.

The secret is `whsec_` and the base64 of 32 random bytes, shown once. The database keeps it
encrypted with Fernet (cryptography) under a key derived (HKDF-SHA256) from each entry of
LTM_WEBHOOK_ENCRYPTION_KEYS, by default the SECRET_KEY: a copy of the database alone cannot
sign. The first key encrypts, every key decrypts, so an operator rotates the key by putting a
new one first.
"""

import base64
import secrets
from datetime import UTC, datetime
from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from standardwebhooks.webhooks import Webhook as StandardWebhook

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32


def secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


@cache
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    def derived(key: str) -> Fernet:
        hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"ltm hub webhook secrets")
        return Fernet(base64.urlsafe_b64encode(hkdf.derive(key.encode())))

    return MultiFernet([derived(key) for key in keys])


def _keys() -> tuple[str, ...]:
    return tuple(settings.LTM_WEBHOOK_ENCRYPTION_KEYS or [settings.SECRET_KEY])


def secret_seal(secret: str) -> str:
    """What the database keeps of `secret`."""
    return _fernet(_keys()).encrypt(secret.encode()).decode()


def secret_open(sealed: str) -> str:
    try:
        return _fernet(_keys()).decrypt(sealed.encode()).decode()
    except InvalidToken:
        raise RuntimeError(
            "a webhook secret cannot be decrypted: LTM_WEBHOOK_ENCRYPTION_KEYS (or SECRET_KEY) is not the "
            "key it was encrypted with"
        ) from None


def signed_headers(*, message_id: str, body: str, secrets_sealed: list[str], at: datetime | None = None) -> dict:
    """The Standard Webhooks headers of one attempt: its id, its time, and a `v1,` signature by
    each secret (two while a rotated-out secret still signs), separated by spaces."""
    at = at or datetime.now(UTC)
    signatures = [
        StandardWebhook(secret_open(sealed)).sign(msg_id=message_id, timestamp=at, data=body)
        for sealed in secrets_sealed
    ]
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": " ".join(signatures),
        "Content-Type": "application/json",
    }
