"""The packets app's models and the rules on them, one module each: who may read, change, clear
and share a packet (rights), what the secret scan holds back (held), the packet (packet), a share
of one with a person (share) and a rescan's run (scan_run). Everything is importable from here."""

from packets.models.held import (
    HELD_GOAL,
    Held,
    content_readable_sql,
    findings_named,
    held_out,
    held_q,
    held_refusal,
    held_sql,
)
from packets.models.packet import PAGE_FIELDS, SCAN_FIELDS, Packet, PacketQuerySet
from packets.models.rights import (
    ALL_ROLES,
    CHANGE,
    CLEAR,
    READ,
    Right,
    changeable_sql,
    personal_sql,
    readable_sql,
    shareable_q,
    team_readable_sql,
    teams_sql,
)
from packets.models.scan_run import ScanRun
from packets.models.share import SHARE_NOTE_MAX_LENGTH, Share

__all__ = [
    "ALL_ROLES",
    "CHANGE",
    "CLEAR",
    "HELD_GOAL",
    "PAGE_FIELDS",
    "READ",
    "SCAN_FIELDS",
    "SHARE_NOTE_MAX_LENGTH",
    "Held",
    "Packet",
    "PacketQuerySet",
    "Right",
    "ScanRun",
    "Share",
    "changeable_sql",
    "content_readable_sql",
    "findings_named",
    "held_out",
    "held_q",
    "held_refusal",
    "held_sql",
    "personal_sql",
    "readable_sql",
    "shareable_q",
    "team_readable_sql",
    "teams_sql",
]
