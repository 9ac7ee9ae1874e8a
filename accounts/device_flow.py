"""The rules of the device flow (RFC 8628) as this hub runs it: user codes, lifetimes, polling.

Grant life: authorization-pending -> authorized | denied (the person decides on /device)
-> redeemed (the client got its one token). Past `expires`, a grant that was not redeemed answers
`expired_token`. `redeemed` is our own status value: django-oauth-toolkit's DeviceGrant has no
state for "token already issued", and without one a device_code could be exchanged again and
again. The state changes are in accounts.services, the reads in accounts.selectors.
"""

import re
import secrets
from datetime import timedelta

from django.conf import settings
from oauth2_provider.models import get_device_grant_model

CLI_CLIENT_ID = "ltm-cli"

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
    grants = get_device_grant_model().objects
    while True:
        code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
        if not grants.filter(user_code=code).exists():
            return code


def cli_token_lifetime() -> timedelta:
    """Tokens issued to `ltm-cli` live this long: the client never refreshes."""
    return timedelta(days=settings.LTM_CLI_TOKEN_LIFETIME_DAYS)
