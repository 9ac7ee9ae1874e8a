"""`ltm webhooks add|ls|rm|ping|deliveries`: tell other tools when something happens on the hub."""

from __future__ import annotations

from .. import verbs
from ..output import note, shorten, table, to_json, wants_json
from . import whole_number


def register(add) -> None:
    webhooks = add("webhooks", cmd_ls, "tell other tools (chat, CI, scripts) when packets or members change")
    actions = webhooks.add_subparsers(metavar="<action>")
    new = actions.add_parser("add", help="add a webhook; prints its secret once", description="add a webhook")
    new.add_argument("url", help="where the hub POSTs each event (http or https)")
    new.add_argument(
        "--event", action="append", required=True, choices=verbs.WEBHOOK_EVENTS, help="an event it hears (repeatable)"
    )
    new.add_argument("-t", "--team", help="a team you own or administer (default: your personal packets)")
    new.add_argument("--format", choices=["slack"], help='post a Slack message ({"text": ...}) instead')
    new.set_defaults(handler=cmd_add)
    listed = actions.add_parser("ls", help="list your webhooks", description="list your webhooks and your teams'")
    listed.add_argument("-t", "--team", help="only this team's")
    listed.add_argument("--json", action="store_true", help="print JSON")
    listed.set_defaults(handler=cmd_ls)
    for name, handler, help in (
        ("rm", cmd_rm, "remove a webhook"),
        ("ping", cmd_ping, "send a webhook.ping delivery"),
        ("deliveries", cmd_deliveries, "a webhook's deliveries, newest first"),
    ):
        sub = actions.add_parser(name, help=help, description=help)
        sub.add_argument("id", help="the webhook's id (`ltm webhooks ls`)")
        sub.set_defaults(handler=handler)
        if name == "deliveries":
            sub.add_argument("--limit", type=whole_number(1, 100), help="how many, 1 to 100 (default 20)")
            sub.add_argument("--json", action="store_true", help="print JSON")


def cmd_add(args) -> int:
    made = verbs.add_webhook(args.url, args.event, team=args.team, format=args.format)
    print(made.get("secret", ""))
    note(f"added webhook {made.get('id')}; the line above is its signing secret, shown only this once")
    return 0


def cmd_ls(args) -> int:
    webhooks = verbs.list_webhooks(team=getattr(args, "team", None))
    if wants_json(getattr(args, "json", False)):
        print(to_json({"webhooks": webhooks}))
    elif not webhooks:
        note("no webhooks yet; add one with `ltm webhooks add URL --event packet.created`")
    else:
        rows = [
            (
                w.get("id", ""),
                w.get("team") or "(personal)",
                "on" if w.get("active") else f"off {w.get('off_reason') or ''}".strip(),
                shorten(",".join(w.get("events", [])), 40),
                w.get("url", ""),
            )
            for w in webhooks
        ]
        table(["ID", "SCOPE", "STATE", "EVENTS", "URL"], rows)
    return 0


def cmd_rm(args) -> int:
    verbs.remove_webhook(args.id)
    note(f"removed webhook {args.id}")
    return 0


def cmd_ping(args) -> int:
    delivery = verbs.ping_webhook(args.id)
    note(f"ping queued as delivery {delivery.get('id')}; see it with `ltm webhooks deliveries {args.id}`")
    return 0


def cmd_deliveries(args) -> int:
    deliveries = verbs.webhook_deliveries(args.id, limit=args.limit)
    if wants_json(args.json):
        print(to_json({"deliveries": deliveries}))
    elif not deliveries:
        note(f"no deliveries to webhook {args.id} yet")
    else:
        rows = [
            (
                d.get("id", ""),
                d.get("event", ""),
                d.get("status", ""),
                d.get("attempts", 0),
                d.get("response_status") or "",
                shorten(d.get("error") or "", 40),
                d.get("created_at", ""),
            )
            for d in deliveries
        ]
        table(["ID", "EVENT", "STATUS", "ATTEMPTS", "ANSWER", "ERROR", "CREATED"], rows)
    return 0
