"""Whether recall by meaning is on (LTM_SEMANTIC), answered without loading it.

The modules that rank by meaning (embedding, matrix, semantic, vectors, vector_queue) import numpy
and, once used, the model: a process with the feature off never needs them, and the $5 VPS profile
counts every MiB of its one process. The code that runs either way (search, the packet page, the
push's hook, the Celery task) asks here first and imports those modules only when it is on."""

import functools

from django.conf import settings
from django.db import transaction


def enabled() -> bool:
    """Whether recall by meaning is on (LTM_SEMANTIC; with it off, search is keyword only)."""
    return settings.LTM_SEMANTIC == "on"


def embed_after_push(*, packet, **_signal) -> None:
    """Connected to packets.signals.packet_pushed: the pushed packet (stored with no vector) is
    embedded once the push commits (packets.search.vector_queue)."""
    if enabled():
        from packets.search import vector_queue

        transaction.on_commit(functools.partial(vector_queue.embed_soon, packet.pk))
