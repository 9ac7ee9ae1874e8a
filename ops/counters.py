"""What people do, counted from the hooks the apps declare, whichever surface they used (the API,
the dashboard, MCP): each count is made once the change has committed, so a change rolled back
counts nothing. Searches change nothing and send no hook: ops.metrics counts those of the API and
the dashboard by their route."""

from django.db import transaction

from ops import metrics
from packets.signals import packet_pushed, packets_changed
from teams.models import TeamEvent
from webhooks.signals import delivery_attempted


def _count_push(*, packet, **_signal) -> None:
    scope = "team" if packet.team_id else "personal"
    transaction.on_commit(metrics.PACKETS_PUSHED.labels(scope).inc)


def _count_changes(*, actor, lines, **_signal) -> None:
    for kind, team_id, _packet in lines:
        scope = "team" if team_id else "personal"
        if kind == TeamEvent.PACKET_FLAGGED:
            # A flagged line with an actor is a push the scan held back; without one, a rescan.
            transaction.on_commit(metrics.PACKETS_FLAGGED.labels("push" if actor else "rescan").inc)
        elif kind == TeamEvent.PACKET_SHARED:
            transaction.on_commit(metrics.SHARES.labels(scope).inc)


def _count_delivery(*, result, **_signal) -> None:
    # Sent after the attempt's outcome committed: counted at once.
    metrics.WEBHOOK_DELIVERIES.labels(result).inc()


packet_pushed.connect(_count_push, dispatch_uid="ops-count-pushes")
packets_changed.connect(_count_changes, dispatch_uid="ops-count-changes")
delivery_attempted.connect(_count_delivery, dispatch_uid="ops-count-deliveries")
