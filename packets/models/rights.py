"""Who may read, change, clear and share a packet: READ, CHANGE, CLEAR and SHARE below are the one
statement of each rule, read by the queryset (Packet.objects.visible_to / changeable_by /
shareable_by) and, for reading and changing, by the SQL fragments of the hot paths that run plain
SQL (every value a parameter). HELD, which narrows READ while the secret scan quarantines a
packet, is packets.models.held."""

import functools
from typing import NamedTuple

from django.db.models import Q

from packets.models.share import Share
from teams.models import Membership, Team
from teams.second_factor import open_memberships, open_memberships_sql

ALL_ROLES = tuple(role for role, _ in Membership.ROLES)


class Right(NamedTuple):
    """Who holds a right on a packet: its creator (on their personal packets only, or on the team
    packets they pushed too, while they are in the team), the members of the packet's team whose
    role is one of `roles`, and (when `shared`) the people it was shared with. Leaving a team, or
    being removed from it, ends every right in it; so does a team's requirement of a second factor
    while the person has not shown one (teams.second_factor decides which memberships count).

    Each right is declared here once and read two ways, as a queryset filter (`q`) and as a SQL
    condition for the hot paths that run plain SQL (`sql`), so the two cannot drift apart."""

    creator_on_team_packets: bool
    roles: tuple[str, ...]
    shared: bool = False

    def q(self, person) -> Q:
        granted = Q(team__isnull=True, owner_id=person.pk) | Q(team_id__in=self._teams(person, self.roles))
        if self.creator_on_team_packets:
            granted |= Q(owner_id=person.pk, team_id__in=self._teams(person, ALL_ROLES))
        if self.shared:
            granted |= Q(pk__in=Share.objects.filter(recipient_id=person.pk).values("packet_id"))
        return granted

    @staticmethod
    def _teams(person, roles):
        teams = open_memberships(Membership.objects.filter(user_id=person.pk), person)
        if roles != ALL_ROLES:
            teams = teams.filter(role__in=roles)
        return teams.values("team_id")

    def sql(self, alias: str, person) -> tuple[str, list]:
        """(condition, params) on `alias`, a row of the packets table."""
        condition, params = _right_sql(self, alias, open_memberships_sql(person))
        return condition, _for(person, params)

    def teams_sql(self, person) -> tuple[str, list]:
        """(SELECT of the teams where `person` holds the right by their role, params)."""
        return teams_sql(self.roles, person)


def teams_sql(roles: tuple[str, ...], person) -> tuple[str, list]:
    """(SELECT of the teams where `person` has one of `roles`, params): the roles are parameters
    too, never text in the SQL."""
    sql, params = _teams_sql(roles, open_memberships_sql(person))
    return sql, _for(person, params)


# The conditions' text depends only on the right, the alias and the teams closed to the person
# (teams.second_factor), never on the person: it is built once for each, since every pull and
# every list asks for one. PERSON stands for the person's id among the cached parameters.
PERSON = object()


def _for(person, params: tuple) -> list:
    return [person.pk if value is PERSON else value for value in params]


@functools.cache
def _right_sql(right: Right, alias: str, closed: str) -> tuple[str, tuple]:
    teams, params = _teams_sql(right.roles, closed)
    granted = f"{_personal(alias)} OR {alias}.team_id IN ({teams})"
    params = (PERSON, *params)
    if right.creator_on_team_packets:
        member_of, member_params = _teams_sql(ALL_ROLES, closed)
        granted += f" OR ({alias}.owner_id = %s AND {alias}.team_id IN ({member_of}))"
        params += (PERSON, *member_params)
    if right.shared:
        granted += f" OR {alias}.id IN (SELECT packet_id FROM {Share._meta.db_table} WHERE recipient_id = %s)"
        params += (PERSON,)
    return f"({granted})", params


def _teams_sql(roles: tuple[str, ...], closed: str) -> tuple[str, tuple]:
    sql = f"SELECT team_id FROM {Membership._meta.db_table} WHERE user_id = %s{closed}"
    if roles == ALL_ROLES:
        return sql, (PERSON,)
    return f"{sql} AND role IN ({', '.join(['%s'] * len(roles))})", (PERSON, *roles)


# Reading: your personal packets, every packet of a team you are in, whatever your role, and every
# packet shared with you (but see HELD).
READ = Right(creator_on_team_packets=False, roles=ALL_ROLES, shared=True)
# Changing (delete, publish, unpublish, move): your personal packets; the team packets you pushed,
# while you are in the team; every packet of a team you own or administer. A member who leaves or
# is removed changes nothing of the team's any more: what they pushed, its public page too, stays
# under the control of the team's owner and admins.
CHANGE = Right(creator_on_team_packets=True, roles=Membership.MANAGERS)
# Clearing a packet's secret-scan findings, and reading a packet they hold back: as changing it.
CLEAR = CHANGE


def _personal(alias: str) -> str:
    return f"({alias}.team_id IS NULL AND {alias}.owner_id = %s)"


# The SQL fragments the plain-SQL paths (pull, list, search, thread, export, delete, publish) put
# in their WHERE, each a (condition, params) pair on `alias`, a row of the packets table.


def readable_sql(alias: str, viewer) -> tuple[str, list]:
    """The packets `viewer` may read (READ), held ones included: they may know those exist."""
    return READ.sql(alias, viewer)


def changeable_sql(alias: str, actor) -> tuple[str, list]:
    """The packets `actor` may change (CHANGE)."""
    return CHANGE.sql(alias, actor)


def personal_sql(alias: str, viewer) -> tuple[str, list]:
    """Only the viewer's personal packets: the part of READ that needs no team."""
    return _personal(alias), [viewer.pk]


def team_readable_sql(alias: str, viewer, team_name: str) -> tuple[str, list]:
    """Only the packets of the team named `team_name`, if READ lets `viewer` read that team's
    packets (nothing otherwise). A scalar subquery, so the planner reads that one team's index in
    order."""
    team = f"{alias}_team"  # not `t`: the callers' own queries join the teams table as `t`
    readable_teams, params = READ.teams_sql(viewer)
    sql = (
        f"{alias}.team_id = (SELECT {team}.id FROM {Team._meta.db_table} {team} "
        f"WHERE {team}.name = %s AND {team}.id IN ({readable_teams}))"
    )
    return sql, [team_name, *params]


def shareable_q(person) -> Q:
    """SHARE, the packets `person` may share with someone by name: their own personal packets,
    and every packet of a team they are in that allows sharing outside it (Team.share_outside).
    A share lasts while its sender holds this right (packets.sharing.services.shares_prune)."""
    teams = open_memberships(Membership.objects.filter(user_id=person.pk, team__share_outside=True), person)
    return Q(team__isnull=True, owner_id=person.pk) | Q(team_id__in=teams.values("team_id"))
