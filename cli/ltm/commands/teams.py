"""The team commands: `ltm teams create|rm|ls|members|leave|log` (and the administration, in
team_admin), `ltm invite`, `ltm join`."""

from __future__ import annotations

from .. import verbs
from ..output import note, shorten, table, to_json, wants_json
from . import act, team_admin


def register(add) -> None:
    teams = add("teams", cmd_teams_ls, "manage teams: create, rm, ls, members, leave, log; role, transfer, invites")
    team_verbs = teams.add_subparsers(metavar="<action>")
    for name, handler, help in (
        ("create", cmd_teams_create, "create a team (you own it)"),
        ("rm", cmd_teams_rm, "delete a team you own, with its packets"),
        ("members", cmd_teams_members, "list a team's members"),
        ("leave", cmd_teams_leave, "leave a team"),
    ):
        sub = team_verbs.add_parser(name, help=help, description=help)
        sub.add_argument("name", help="the team's name")
        sub.set_defaults(handler=handler)
        if name == "members":
            sub.add_argument("--json", action="store_true", help="print JSON")
    team_ls = team_verbs.add_parser("ls", help="list your teams", description="list your teams")
    team_ls.add_argument("--json", action="store_true", help="print JSON")
    team_ls.set_defaults(handler=cmd_teams_ls)
    team_log = team_verbs.add_parser(
        "log",
        help="a team's activity, newest first",
        description="a team's activity (pushes, deletes, members, invites), newest first",
    )
    team_log.add_argument("name", help="the team's name")
    team_log.add_argument("--limit", type=int, help="how many events (1 to 200, default 50)")
    team_log.add_argument("--before", type=int, metavar="ID", help="only events older than this event id (paging)")
    team_log.add_argument("--kind", help="only this kind, e.g. packet.deleted or member.joined")
    team_log.add_argument("--json", action="store_true", help="print JSON")
    team_log.set_defaults(handler=cmd_teams_log)
    team_admin.register(team_verbs)

    invite = add("invite", cmd_invite, "create a single-use invite link (valid 7 days)")
    invite.add_argument("-t", "--team", required=True, help="the team to invite to")
    invite.add_argument("--email", help="have the hub mail the link to this address (team owner and admins)")
    invite.add_argument("--label", help="who the link is for, shown with the pending invites")
    join = add("join", cmd_join, "join a team with an invite link")
    join.add_argument("invite", metavar="url-or-code", help="the invite link, or the code at its end")
    join.add_argument(
        "--name", help="your name on the hub when joining creates a new account (default: the config `user`, if set)"
    )


cmd_teams_create = act("create_team", "name", "created team {answer}; invite people with `ltm invite -t {answer}`")
cmd_teams_rm = act("delete_team", "name", "deleted team {name} and its packets")


def cmd_teams_ls(args) -> int:
    teams = verbs.list_teams()
    if wants_json(getattr(args, "json", False)):  # plain `ltm teams` has no --json
        print(to_json({"teams": teams}))
    elif not teams:
        note("you are in no team yet; create one with `ltm teams create <name>`")
    else:
        table(["NAME", "ID", "CREATED"], [(t.get("name", ""), t.get("id", ""), t.get("created_at", "")) for t in teams])
    return 0


def cmd_teams_members(args) -> int:
    members = verbs.team_members(args.name)
    if wants_json(args.json):
        print(to_json({"members": members}))
        return 0
    rows = [
        (m.get("display", ""), m.get("email") or "", m.get("role", ""), m.get("joined_at", ""), m.get("user_id", ""))
        for m in members
    ]
    table(["NAME", "EMAIL", "ROLE", "JOINED", "USER ID"], rows)
    return 0


cmd_teams_leave = act("leave_team", "name", "left team {name}")


def cmd_teams_log(args) -> int:
    page = verbs.team_log(args.name, limit=args.limit, before=args.before, kind=args.kind)
    events = page.get("events") or []
    if wants_json(args.json):
        print(to_json(page))
        return 0
    if not events:
        note("no activity" + (" of that kind" if args.kind else "") + " yet")
        return 0
    table(
        ["WHEN", "WHO", "WHAT", "ID"],
        [
            (
                e.get("created_at", ""),
                (e.get("actor") or {}).get("display", ""),
                shorten(e.get("summary", ""), 90),
                e.get("id", ""),
            )
            for e in events
        ],
    )
    if page.get("next_before"):
        note(f"older events: ltm teams log {args.name} --before {page['next_before']}")
    return 0


def cmd_invite(args) -> int:
    invite = verbs.create_invite(args.team, email=args.email, label=args.label)
    print(invite.get("url", ""))
    if args.email:
        note(f"the hub is mailing this link to {args.email}")
    note(f"single use, expires {invite.get('expires_at', 'in 7 days')}; the invitee runs `ltm join <url>`")
    return 0


def cmd_join(args) -> int:
    joined = verbs.join(args.invite, args.name)
    print(joined.team)
    if joined.token_path:
        # Unnamed, the hub picks a name such as "member": quoted, it does not read like the role.
        who = joined.user if joined.named else f'user "{joined.user}"'
        note(f"joined team {joined.team} as {who} (new account; run `ltm account claim` to sign in on the web)")
        note(f"signed in to {joined.host}; token stored in {joined.token_path}")
    else:
        note(f"joined team {joined.team} as {joined.user}")
    return 0
