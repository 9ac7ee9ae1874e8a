"""Hooks the packet declares, for the subjects above it (search, and later others) to follow a
change without the packet importing them.

packet_pushed: a push stored a packet (new or replacing one), sent in the push's transaction.
Arguments: packet (the stored Packet), actor (who pushed it). A receiver that has work for after
the commit asks transaction.on_commit for it."""

from django.dispatch import Signal

packet_pushed = Signal()

# packets_changed: packets were pushed, re-pushed, flagged, deleted, published, unpublished, moved,
# shared or cleared, personal ones too; sent inside the change's transaction (webhooks tell other
# tools of it, their deliveries committing with the change). Arguments: actor (None: the hub
# itself, a rescan), lines: (kind, team_id, packet) as teams.events.packet_events_record takes
# them, the kind one of TeamEvent's packet kinds, team_id the scope the line is about (None: the
# personal packets of packet.owner_id).
packets_changed = Signal()
