"""pytest (pytest.ini) runs with these. DATABASE_URL and REDIS_URL still choose PostgreSQL and
Redis (CI); what must differ per test (the cache key prefix) is a fixture in conftest.py."""

from .base import *  # noqa: F403

SECRET_KEY = "test-only-insecure-key"

# Full-strength password hashing is slow by design; tests do not need it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tasks run in the test's process even with a Redis broker; the real-worker test sends its task
# to the broker itself.
CELERY_TASK_ALWAYS_EAGER = True

# No sweeping thread in a web process the tests import: the outbox's tests sweep when they mean to.
LTM_OUTBOX_WEB_SWEEP = False

# No warm-up either when a test imports hub.wsgi: it would connect before the test database exists.
LTM_WARM_UP = False

# Webhooks reach the tests' receivers on loopback, and are sent by the (eager) Celery tasks, in
# the test's process, once the change commits; webhooks/tests/test_embedded.py turns the web
# process's sender on where it tests it.
LTM_WEBHOOK_ALLOW_HOSTS = ["localhost", "127.0.0.0/8", "::1"]
LTM_WEBHOOK_SENDER = "worker"

# Federation: the tests' hubs talk over http on loopback, with an Ed25519 key made for this run;
# messages go out through the (eager) Celery task once the share commits.
LTM_FEDERATION_ALLOW_HOSTS = ["localhost", "127.0.0.0/8", "::1"]
LTM_FEDERATION_SENDER = "worker"
# Two hubs on a loaded test machine: room for the other's answer.
LTM_FEDERATION_TIMEOUT = 30.0


def _test_hub_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    key = ed25519.Ed25519PrivateKey.generate()
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


LTM_HUB_KEY = _test_hub_key()

# The hub is an OpenID Connect provider in every test, with a key made for this run.
from oauth.management.commands.ltm_oidc_key import new_rsa_key_pem  # noqa: E402

from .identity import oidc_provider  # noqa: E402
from .oauth import OAUTH2_PROVIDER  # noqa: E402

OAUTH2_PROVIDER.update(oidc_provider(new_rsa_key_pem()))
# Passkeys in the browser tests, on http://localhost.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True

# /v1/readyz does not ask for the built manual: the tests build it only where they test it.
LTM_READYZ_MANUAL = False
