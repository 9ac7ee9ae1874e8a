"""The ltm hub (a Django project). Its version, one for the hub and its `ltm` client (cli/ltm), is
read by the settings (LTM_VERSION) and shown on /v1/healthz, in the dashboard's footer, in the
metrics' build info and by `ltm --version`; CHANGELOG.md says what each one changed."""

__version__ = "0.9.0"

# Load the Celery app with Django so that @shared_task uses it.
from .celery import app as celery_app  # noqa: E402

__all__ = ("__version__", "celery_app")
