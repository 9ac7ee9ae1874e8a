"""The production settings as checks/fuzz.py serves them: the same, but for the per-address limits of
the two open OAuth endpoints, lifted so that the fuzzer (always one address) reaches what they
guard rather than a 429 (the limits are tested in accounts/tests/test_rate_limits.py and
test_oauth_hostile_input.py)."""

from hub.settings.production import *  # noqa: F403
from hub.settings.production import ACCOUNT_RATE_LIMITS

ACCOUNT_RATE_LIMITS = {**ACCOUNT_RATE_LIMITS, "device_authorization": None, "oauth_register": None}

# Webhooks the fuzzer adds call nothing but loopback (and no name is looked up): the fuzzer's
# random URLs are refused with a 400, and what it adds for 127.0.0.1 reaches nothing listening.
LTM_WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
LTM_WEBHOOK_ONLY_LISTED = True
