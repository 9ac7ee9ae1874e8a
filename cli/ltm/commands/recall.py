"""Recall by meaning: `ltm related ID` (the packets nearest in meaning to one) and `ltm recall
"TEXT"` (the briefing of the packets most related to the task at hand)."""

from __future__ import annotations

from .. import verbs
from ..output import note, to_json, wants_json
from . import whole_number
from .packets import result_line

RELATED_MAX = 50


def register(add) -> None:
    related = add("related", cmd_related, "the packets nearest in meaning to one, best first")
    related.add_argument("id", help="packet id")
    related.add_argument(
        "--limit", type=whole_number(1, RELATED_MAX), help=f"how many, 1 to {RELATED_MAX} (the hub's default: 5)"
    )
    related.add_argument("--json", action="store_true", help="print JSON")

    recall = add(
        "recall",
        cmd_recall,
        "before a task: the earlier packets most related to it, with what failed and what was decided",
    )
    recall.add_argument("text", nargs="+", help="the task at hand, in your own words")
    recall.add_argument("-t", "--team", help="only this team's packets (default: yours and every team's)")
    recall.add_argument("--limit", type=whole_number(1, 10), help="how many packets, 1 to 10 (default 5)")


def cmd_related(args) -> int:
    results = verbs.related(args.id, limit=args.limit)
    if wants_json(args.json):  # the hub's shape: {"results": [...]}
        print(to_json({"results": results}))
    elif not results:
        note(f"no other packet you may read is related to {args.id}")
    else:
        for result in results:
            print(result_line(result))
    return 0


def cmd_recall(args) -> int:
    print(verbs.recall(" ".join(args.text), team=args.team, limit=args.limit), end="")
    return 0
