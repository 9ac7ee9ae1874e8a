"""Periodic housekeeping of the OAuth server (scheduled in settings.CELERY_BEAT_SCHEDULE)."""

import logging

from celery import shared_task
from oauth2_provider.models import clear_expired

from oauth.services import device_grants_purge, spent_codes_purge, unused_clients_purge

logger = logging.getLogger(__name__)


# The task keeps the name it had in the accounts app: beat schedules and messages already queued
# on a deployed hub call it by that name.
@shared_task(name="accounts.tasks.purge_expired_oauth")
def purge_expired_oauth() -> int:
    """Delete expired device grants, then the toolkit's expired tokens and grants. Returns the
    number of device grants deleted."""
    grants = device_grants_purge()
    clear_expired()
    spent_codes_purge()
    unused_clients_purge()
    logger.info("purged %s expired device grants", grants)
    return grants
