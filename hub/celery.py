"""The Celery app: `celery -A hub worker` and `celery -A hub beat` start from here."""

import os

from celery import Celery
from celery.signals import worker_init, worker_process_init, worker_ready
from django.db import connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hub.settings.production")

app = Celery("hub")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def count_in_the_workers_folder(sender=None, **kwargs):
    """The worker and the pool it forks count their metrics in a folder named for the worker
    (hub/metrics_dir.py)."""
    from hub.metrics_dir import claim

    claim(f"worker-{getattr(sender, 'hostname', None) or os.getpid()}")


@worker_process_init.connect
def warm_up_the_process(**kwargs):
    """Each worker process, once forked, builds what its first tasks would and freezes what it
    holds (hub/warm_up.py), unless settings.LTM_WARM_UP is off."""
    from django.conf import settings

    if settings.LTM_WARM_UP:
        from hub.warm_up import warm_up

        warm_up()


@worker_ready.connect
def sweep_the_outbox(**kwargs):
    """A worker that starts queues what the outbox kept while none ran (core.outbox)."""
    from core.outbox import outbox_sweep  # its models need the apps loaded

    try:
        outbox_sweep()
    finally:
        connections.close_all()
