"""Filling in the packets' vectors (`manage.py ltm_embed`), off the web request."""

import logging

from celery import shared_task

from teams.models import Team

EMBED_TASK = "packets.search.tasks.embed_packets"

logger = logging.getLogger(__name__)


@shared_task(name=EMBED_TASK)
def embed_packets(*, missing: bool, team_id=None) -> int:
    """Store the vectors of the packets that have none (`missing`) or of every packet, of the team
    `team_id` only when given (packets.search.vectors.vectors_fill); how many were stored."""
    team = Team.objects.filter(pk=team_id).first() if team_id is not None else None
    if team_id is not None and team is None:
        logger.info("team %s no longer exists; nothing embedded", team_id)
        return 0
    from packets.search.vectors import vectors_fill  # numpy and the model: only where the task runs

    stored = vectors_fill(
        missing=missing, team=team, progress=lambda count: logger.info("ltm_embed: %s packets embedded", count)
    )
    logger.info("ltm_embed: done, %s packets embedded", stored)
    return stored
