"""Where federation follows the packets: their signals, sent inside the change's transaction, so
that the messages commit with the change.

- packets.signals.packets_changed: a re-push sends each remote share an update (never a push the
  secret scan flagged: that version stays here); a deletion, or a move, withdraws those whose
  sender may no longer share the packet;
- teams.signals.sharing_narrowed: a member left, or the team stopped sharing outside it: the
  remote shares its sender may no longer make are withdrawn.

A hub with federation off talks to no other hub, so its changes ask nothing about remote shares
(the default costs a push nothing).
"""

from django.conf import settings

from federation import services
from packets.sharing import remote
from packets.signals import packets_changed
from teams.models import TeamEvent
from teams.signals import sharing_narrowed


def packets_changed_followed(*, lines, **_signal) -> None:
    if settings.LTM_FEDERATION == "off":
        return
    for kind, _team_id, packet in lines:
        if kind == TeamEvent.PACKET_REPUSHED:
            services.remote_shares_update(packet=packet)
        elif kind == TeamEvent.PACKET_DELETED:
            services.remote_shares_of_deleted(packet_ids=[packet.pk])
        elif kind == TeamEvent.PACKET_MOVED_IN:
            services.remote_shares_prune(packet_ids=[packet.pk])


def connect() -> None:
    remote.register(services.Remote())
    packets_changed.connect(packets_changed_followed, dispatch_uid="federation-packets")
    sharing_narrowed.connect(services.remote_shares_prune, dispatch_uid="federation-shares-prune")
