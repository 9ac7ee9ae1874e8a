"""The rescan of stored packets with today's secret-scan patterns, off the web request."""

import logging

from celery import shared_task

from packets.scan.rescan import RESCAN_TASK, scan_run_perform

logger = logging.getLogger(__name__)


@shared_task(name=RESCAN_TASK)
def rescan_packets(run_id: str) -> dict | None:
    """Do the ScanRun `run_id` (packets.scan.rescan.scan_run_perform); its counts, or None when the
    run is gone."""
    run = scan_run_perform(run_id=run_id)
    if run is None:
        logger.info("scan %s no longer exists; nothing scanned", run_id)
        return None
    logger.info("scan %s: %s scanned, %s flagged, %s unflagged", run.pk, run.scanned, run.flagged, run.unflagged)
    return {"scanned": run.scanned, "flagged": run.flagged, "unflagged": run.unflagged}
