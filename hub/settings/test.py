"""pytest (pytest.ini) runs with these. DATABASE_URL and REDIS_URL still choose PostgreSQL and
Redis (CI); what must differ per test (the cache key prefix) is a fixture in conftest.py."""

from .base import *  # noqa: F403

SECRET_KEY = "test-only-insecure-key"

# Full-strength password hashing costs about a second per sign-up; tests don't need it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tasks run in the test's process even with a Redis broker; the real-worker test sends its task
# to the broker itself.
CELERY_TASK_ALWAYS_EAGER = True

# No sweeping thread in a web process the tests import: the outbox's tests sweep when they mean to.
LTM_OUTBOX_WEB_SWEEP = False

# No warm-up either when a test imports hub.wsgi: it would connect before the test database exists.
LTM_WARM_UP = False
