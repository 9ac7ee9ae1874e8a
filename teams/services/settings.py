"""A team's settings, which its owner and admins change."""

from django.conf import settings
from django.db import transaction

from core.errors import BadRequest
from teams.events import team_event_record
from teams.models import SCAN_LEVELS, Team, TeamEvent
from teams.services.guards import require_manager, team_locked
from teams.signals import sharing_narrowed


@transaction.atomic
def team_settings_update(
    *,
    actor,
    team,
    share_outside: bool | None = None,
    secret_scan: str | None = None,
    require_mfa: bool | None = None,
) -> Team:
    """Change the settings given (None: unchanged). Turning `share_outside` off ends the shares of
    the team's packets with people outside it, in the same transaction. `secret_scan` may make
    the hub's secret scan stricter for the team's packets, never looser. `require_mfa` closes the
    team's packets to members who have not shown a second factor (teams.second_factor)."""
    team = team_locked(team)
    require_manager(actor=actor, team=team)
    if secret_scan is not None:
        _require_not_looser(secret_scan)
    changed = {}
    if share_outside is not None and share_outside != team.share_outside:
        changed["share_outside"] = team.share_outside = share_outside
    if secret_scan is not None and secret_scan != team.secret_scan:
        changed["secret_scan"] = team.secret_scan = secret_scan
    if require_mfa is not None and require_mfa != team.require_mfa:
        changed["require_mfa"] = team.require_mfa = require_mfa
    if not changed:
        return team
    team.save(update_fields=list(changed))
    team_event_record(team_id=team.pk, actor=actor, kind=TeamEvent.SETTINGS_CHANGED, **changed)
    if changed.get("share_outside") is False:
        sharing_narrowed.send(sender=Team, team_id=team.pk, actor=actor)
    return team


def _require_not_looser(secret_scan: str) -> None:
    hub = settings.LTM_SECRET_SCAN
    if secret_scan not in SCAN_LEVELS:
        raise BadRequest(f"secret_scan is one of {', '.join(SCAN_LEVELS)}; got {secret_scan!r}")
    if SCAN_LEVELS.index(secret_scan) < SCAN_LEVELS.index(hub):
        stricter = ", ".join(SCAN_LEVELS[SCAN_LEVELS.index(hub) :])
        raise BadRequest(f"this hub's secret scan is {hub!r}; a team may only be stricter ({stricter})")
