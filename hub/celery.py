"""The Celery app: `celery -A hub worker` and `celery -A hub beat` start from here."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.production")

app = Celery("hub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
