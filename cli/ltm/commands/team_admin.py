"""Team administration, under `ltm teams`: role, remove, transfer, transfer-accept|decline|cancel,
invites, invite-revoke, invite-resend. The hub decides who may (the owner, admins) and says so."""

from __future__ import annotations

from .. import verbs
from ..output import note, table, to_json, wants_json
from . import act

USER_HELP = "the member: their name, e-mail or user id (as `ltm teams members TEAM` lists them)"


def register(team_verbs) -> None:
    """Add the administration to `ltm teams`' subcommands."""

    def add(name: str, handler, help: str, *arguments: str):
        sub = team_verbs.add_parser(name, help=help, description=help)
        sub.add_argument("name", metavar="TEAM", help="the team's name")
        for argument in arguments:
            if argument == "user":
                sub.add_argument("user", metavar="USER", help=USER_HELP)
            else:
                sub.add_argument("invite_id", metavar="INVITE_ID", help="as `ltm teams invites TEAM` lists it")
        sub.set_defaults(handler=handler)
        return sub

    add("role", cmd_role, "make a member an admin, or an admin a member again (the owner)", "user").add_argument(
        "role", choices=("admin", "member"), help="the member's new role"
    )
    add("remove", cmd_remove, "remove a member from a team (the owner; admins remove plain members)", "user")
    add("transfer", cmd_transfer, "offer a team's ownership to a member (the owner); they accept or decline", "user")
    add("transfer-accept", cmd_transfer_accept, "take the ownership of a team offered to you")
    add("transfer-decline", cmd_transfer_decline, "decline the ownership of a team offered to you")
    add("transfer-cancel", cmd_transfer_cancel, "withdraw the ownership offer you made (the owner)")
    add("invites", cmd_invites, "list a team's pending invites").add_argument(
        "--json", action="store_true", help="print JSON"
    )
    add("invite-revoke", cmd_invite_revoke, "revoke a pending invite: its link stops working (owner, admins)", "id")
    add("invite-resend", cmd_invite_resend, "mail an invite by e-mail again, with a fresh link (owner, admins)", "id")


def cmd_role(args) -> int:
    member = verbs.set_role(args.name, args.user, args.role)
    role = "an admin" if args.role == "admin" else "a member"
    note(f"{member.get('display') or args.user} is now {role} of team {args.name}")
    return 0


cmd_remove = act("remove_member", "name user", "removed {answer[display]} from team {name}", prints=False)
cmd_transfer = act(
    "offer_transfer",
    "name user",
    "offered the ownership of team {name} to {answer[display]}; nothing changes until they run "
    "`ltm teams transfer-accept {name}` (or `ltm teams transfer-decline {name}`); withdraw it with "
    "`ltm teams transfer-cancel {name}`",
    prints=False,
)
cmd_transfer_accept = act("accept_transfer", "name", "you now own team {name}; the previous owner stays on as an admin")
cmd_transfer_decline = act("cancel_transfer", "name", "declined the ownership of team {name}")
cmd_transfer_cancel = act("cancel_transfer", "name", "withdrew the ownership offer of team {name}")
cmd_invite_revoke = act(
    "revoke_invite", "name invite_id", "revoked invite {invite_id} of team {name}; its link no longer works"
)
cmd_invite_resend = act(
    "resend_invite",
    "name invite_id",
    "mailed a fresh link for invite {invite_id} to {answer[email]}; the link mailed before no longer works",
    prints=False,
)


def cmd_invites(args) -> int:
    invites = verbs.list_invites(args.name)
    if wants_json(args.json):  # the hub's shape: {"invites": [...]}
        print(to_json({"invites": invites}))
    elif not invites:
        note(f"no pending invites in team {args.name}; make one with `ltm invite -t {args.name}`")
    else:
        rows = [
            (
                invite.get("id", ""),
                invite.get("email") or invite.get("label") or "(a bare link)",
                (invite.get("created_by") or {}).get("display", ""),
                invite.get("expires_at", ""),
            )
            for invite in invites
        ]
        table(["ID", "FOR", "BY", "EXPIRES"], rows)
    return 0
