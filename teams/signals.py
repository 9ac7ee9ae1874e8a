"""Signals other apps listen to. Apps above teams (packets) may not be imported here, so teams
announces what happens and they act on it."""

from django.dispatch import Signal

# Sent inside the transaction that narrows who may share a team's packets outside it: a member
# leaves or is removed, or the team stops allowing it. Receivers end what no longer holds
# (packets.sharing.services.shares_prune). Arguments: team_id, actor (who narrowed it).
sharing_narrowed = Signal()

# Sent by a team's pages to learn which of the packets its activity log names the viewer may still
# read, so that those lines link to them (packets.selectors.packet_ids_readable answers, by the
# packets' read rule). Arguments: viewer, packet_ids. Each receiver returns a set of those ids;
# without one, no line links.
packets_readable = Signal()

# Sent by teams.events for each line of a team's activity log it writes with team_event_record,
# inside the transaction of the change (webhooks tell other tools of members joining and
# leaving). Arguments: team_id, actor, kind, detail.
team_event_recorded = Signal()
