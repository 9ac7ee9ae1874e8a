"""Changes to teams, memberships and invites; each function is one transaction.

Callers pass a `team` they resolved for the actor (teams.selectors.team_get_for_member); the
services still check the actor's role themselves (teams.services.guards), so no surface can skip
the rule: a non-member gets 404 (as if the team didn't exist), a member lacking the role 403.

Roles: the `owner` (one per team) may do everything; an `admin` may invite by e-mail, revoke and
resend invites, remove plain members and delete or publish any team packet; a `member` reads,
pushes and mints bare invite links (the protocol lets any member invite). Every change is also a
line in the team's activity log (teams.events), written in the same transaction.

The services live by subject: memberships (teams and who is in them), ownership (the two-step
transfer) and invites, over the shared guards and the one lock order (guards). This package is
their one public surface: callers import from `teams.services`.
"""

from teams.services.guards import team_hold
from teams.services.invites import (
    CODE_IN_LINK,
    SEND_INVITE_MAIL_TASK,
    invite_accept,
    invite_code_renew,
    invite_create,
    invite_mailed,
    invite_resend,
    invite_revoke,
)
from teams.services.memberships import (
    membership_removal_refusal,
    membership_remove,
    membership_set_role,
    team_create,
    team_delete,
    team_leave,
)
from teams.services.ownership import team_transfer_accept, team_transfer_cancel, team_transfer_offer
from teams.services.settings import team_settings_update

__all__ = [
    "CODE_IN_LINK",
    "SEND_INVITE_MAIL_TASK",
    "invite_accept",
    "invite_code_renew",
    "invite_create",
    "invite_mailed",
    "invite_resend",
    "invite_revoke",
    "membership_removal_refusal",
    "membership_remove",
    "membership_set_role",
    "team_create",
    "team_delete",
    "team_hold",
    "team_leave",
    "team_settings_update",
    "team_transfer_accept",
    "team_transfer_cancel",
    "team_transfer_offer",
]
