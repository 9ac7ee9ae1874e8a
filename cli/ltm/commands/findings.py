"""`ltm findings`: what the hub's secret scan found (this hub's extension): the review queue, one
packet's findings, and `ltm findings clear ID --reason ...`. Also the warning `ltm push` prints
when the hub flags a packet."""

from __future__ import annotations

import sys

from .. import verbs
from ..errors import UsageError
from ..output import note, plural, shorten, table, to_json, wants_json

CLEAR = "clear"


def register(add) -> None:
    findings = add(
        "findings",
        cmd_findings,
        "what the hub's secret scan found: the review queue, a packet's findings (ID), or "
        "`clear ID --reason TEXT` to end a packet's quarantine",
    )
    findings.add_argument(
        "target", nargs="?", metavar="ID|clear", help="a packet id (default: the review queue), or `clear`"
    )
    findings.add_argument("clear_id", nargs="?", metavar="ID", help="with `clear`: the packet whose findings to clear")
    findings.add_argument("-t", "--team", help="the review queue of this team only (its owner and admins)")
    findings.add_argument(
        "--reason", metavar="TEXT", help="with `clear`: why the findings are not secrets (kept in the team's log)"
    )
    findings.add_argument("--json", action="store_true", help="print JSON")


def cmd_findings(args) -> int:
    if args.target == CLEAR:
        return _clear(args)
    if args.clear_id is not None:
        raise UsageError(f"one packet id at a time; to clear: `ltm findings clear {args.clear_id} --reason ...`")
    if args.reason is not None:
        raise UsageError("--reason goes with `ltm findings clear ID --reason TEXT`")
    if args.target is None:
        return _queue(args)
    if args.team:
        raise UsageError("-t lists a team's review queue; a packet id needs no team")
    return _packet(args)


def _queue(args) -> int:
    queued = verbs.review_queue(team=args.team)
    if wants_json(args.json):  # the hub's shape: {"findings": [...]}
        print(to_json({"findings": queued}))
        return 0
    if not queued:
        where = f"team {args.team}" if args.team else "you (or the teams you run)"
        note(f"no open findings: the secret scan holds back no packet of {where}")
        return 0
    rows = [
        (
            finding.get("packet_id", ""),
            finding.get("team") or "personal",
            finding.get("path", ""),
            finding.get("kind", ""),
            str(finding.get("created_at") or "")[:16],
            shorten(finding.get("goal", ""), 50),
        )
        for finding in queued
    ]
    table(["PACKET", "TEAM", "FIELD", "KIND", "FOUND", "GOAL"], rows)
    packets = len({finding.get("packet_id") for finding in queued})
    note(
        f"{plural(packets, 'packet')} quarantined (not published, not shared); fix one by pushing it again "
        "without these, or `ltm findings clear <packet> --reason ...` when they are not secrets"
    )
    return 0


def _packet(args) -> int:
    packet_id = args.target
    found = verbs.findings(packet_id)
    if wants_json(args.json):
        print(to_json({"findings": found}))
        return 0
    if not found:
        note(f"the hub's secret scan found nothing in {packet_id}")
        return 0
    table(
        ["FIELD", "KIND", "FOUND", "CLEARED"],
        [
            (
                finding.get("path", ""),
                finding.get("kind", ""),
                str(finding.get("created_at") or "")[:16],
                _cleared(finding),
            )
            for finding in found
        ],
    )
    cleared = found[0]  # a packet's findings are cleared together, with one reason
    if cleared.get("cleared_at"):
        note(f"cleared by {_who(cleared)}: {cleared.get('reason', '')}")
    else:
        note(quarantined(packet_id))
    return 0


def _clear(args) -> int:
    if args.clear_id is None:
        raise UsageError("which packet? `ltm findings clear ID --reason TEXT`")
    if args.team:
        raise UsageError("-t lists a team's review queue; `clear` needs only the packet id")
    if not (args.reason or "").strip():
        raise UsageError("--reason is required: why these findings are not secrets (or no longer matter)")
    cleared = verbs.clear_findings(args.clear_id, args.reason)
    if wants_json(args.json):
        print(to_json({"findings": cleared}))
    note(
        f"cleared {plural(len(cleared), 'finding')} of {args.clear_id}: it may be published and shared again "
        "(the hub keeps who and why; a team's log too)"
    )
    return 0


def _cleared(finding: dict) -> str:
    return str(finding.get("cleared_at"))[:16] + f" by {_who(finding)}" if finding.get("cleared_at") else "open"


def _who(finding: dict) -> str:
    return (finding.get("cleared_by") or {}).get("display") or "someone"


def quarantined(packet_id: str, host: str | None = None) -> str:
    """What a quarantined packet may not do, and how it gets out of quarantine."""
    return f"packet {packet_id} is quarantined: it cannot be published or shared. {verbs.way_out(packet_id, host)}"


def flagged_warning(pushed) -> None:
    """What `ltm push` says of a packet the hub stored but flagged: which fields, which kinds, and
    the way out."""
    note(f"warning: the hub's secret scan found what looks like secrets in packet {pushed.id}:")
    for line in verbs.finding_lines(pushed.findings):
        print(f"  - {line}", file=sys.stderr)
    note(quarantined(pushed.id, pushed.host))
