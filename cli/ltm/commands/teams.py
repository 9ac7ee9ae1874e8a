"""The team commands: `ltm teams create|rm|ls|members|leave`, `ltm invite`, `ltm join`."""

from __future__ import annotations

from .. import verbs
from ..output import note, table, to_json, wants_json


def register(add) -> None:
    teams = add("teams", cmd_teams_ls, "manage teams: create, rm, ls, members, leave")
    team_verbs = teams.add_subparsers(metavar="<action>")
    for name, handler, help in (
        ("create", cmd_teams_create, "create a team (you own it)"),
        ("rm", cmd_teams_rm, "delete a team you own, with its packets"),
        ("members", cmd_teams_members, "list a team's members"),
        ("leave", cmd_teams_leave, "leave a team"),
    ):
        sub = team_verbs.add_parser(name, help=help, description=help)
        sub.add_argument("name")
        sub.set_defaults(handler=handler)
        if name == "members":
            sub.add_argument("--json", action="store_true", help="print JSON")
    team_ls = team_verbs.add_parser("ls", help="list your teams", description="list your teams")
    team_ls.add_argument("--json", action="store_true", help="print JSON")
    team_ls.set_defaults(handler=cmd_teams_ls)

    invite = add("invite", cmd_invite, "create a single-use invite link (valid 7 days)")
    invite.add_argument("-t", "--team", required=True)
    join = add("join", cmd_join, "join a team with an invite link")
    join.add_argument("invite", metavar="url-or-code")
    join.add_argument("--name", help="your name on the hub when joining creates a new account "
                                     "(default: the config `user`, if set)")


def cmd_teams_create(args) -> int:
    name = verbs.create_team(args.name)
    print(name)
    note(f"created team {name}; invite people with `ltm invite -t {name}`")
    return 0


def cmd_teams_rm(args) -> int:
    verbs.delete_team(args.name)
    note(f"deleted team {args.name} and its packets")
    return 0


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
    rows = [(m.get("display", ""), m.get("email") or "", m.get("role", ""), m.get("joined_at", ""), m.get("user_id", ""))
            for m in members]
    table(["NAME", "EMAIL", "ROLE", "JOINED", "USER ID"], rows)
    return 0


def cmd_teams_leave(args) -> int:
    verbs.leave_team(args.name)
    note(f"left team {args.name}")
    return 0


def cmd_invite(args) -> int:
    invite = verbs.create_invite(args.team)
    print(invite.get("url", ""))
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
