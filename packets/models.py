"""The packet, and who may read and change one: READ and CHANGE below are the one statement of
each rule, read by the queryset (Packet.objects.visible_to / changeable_by) and by the SQL
fragments of the hot paths that run plain SQL."""

from typing import NamedTuple

from django.conf import settings
from django.db import models
from django.db.models import Q

from teams.models import Membership, Team

ALL_ROLES = tuple(role for role, _ in Membership.ROLES)


class Right(NamedTuple):
    """Who holds a right on a packet: its creator (on their personal packets only, or on the team
    packets they pushed too) and the members of the packet's team whose role is one of `roles`.

    Each right is declared here once and read two ways, as a queryset filter (`q`) and as a SQL
    condition for the hot paths that run plain SQL (`sql`), so the two cannot drift apart."""

    creator_on_team_packets: bool
    roles: tuple[str, ...]

    def q(self, person) -> Q:
        mine = Q(owner_id=person.pk) if self.creator_on_team_packets else Q(team__isnull=True, owner_id=person.pk)
        teams = Membership.objects.filter(user_id=person.pk)
        if self.roles != ALL_ROLES:
            teams = teams.filter(role__in=self.roles)
        return mine | Q(team_id__in=teams.values("team_id"))

    def sql(self, alias: str, person) -> tuple[str, list]:
        """(condition, params) on `alias`, a row of the packets table."""
        mine = f"{alias}.owner_id = %s" if self.creator_on_team_packets else _personal(alias)
        return f"({mine} OR {alias}.team_id IN ({self.teams_sql()}))", [person.pk, person.pk]

    def teams_sql(self) -> str:
        """SELECT of the teams where the person (its one parameter) holds the right by their role."""
        sql = f"SELECT team_id FROM {Membership._meta.db_table} WHERE user_id = %s"
        if self.roles != ALL_ROLES:
            sql += f" AND role IN ({', '.join(repr(role) for role in self.roles)})"
        return sql


# Reading: your personal packets, and every packet of a team you are in, whatever your role.
READ = Right(creator_on_team_packets=False, roles=ALL_ROLES)
# Changing (delete, publish, unpublish): every packet you pushed, even to a team you have since
# left, and every packet of a team you own or administer.
CHANGE = Right(creator_on_team_packets=True, roles=Membership.MANAGERS)


def _personal(alias: str) -> str:
    return f"({alias}.team_id IS NULL AND {alias}.owner_id = %s)"


# The SQL fragments the plain-SQL paths (pull, list, search, thread, export, delete, publish) put
# in their WHERE, each a (condition, params) pair on `alias`, a row of the packets table.


def readable_sql(alias: str, viewer) -> tuple[str, list]:
    """The packets `viewer` may read (READ)."""
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
    sql = (
        f"{alias}.team_id = (SELECT {team}.id FROM {Team._meta.db_table} {team} "
        f"WHERE {team}.name = %s AND {team}.id IN ({READ.teams_sql()}))"
    )
    return sql, [team_name, viewer.pk]


class PacketQuerySet(models.QuerySet):
    def visible_to(self, viewer):
        """The packets `viewer` may read (READ)."""
        return self.filter(READ.q(viewer))

    def changeable_by(self, actor):
        """The packets `actor` may delete, publish and unpublish (CHANGE)."""
        return self.filter(CHANGE.q(actor))


class Packet(models.Model):
    """A Core Memory Packet as pushed, plus the metadata the hub needs to list and scope it.

    The packet's own `id` is the primary key; `body` is its canonical JSON, served as is.
    Scope is metadata: personal when `team` is empty, else the team's.
    """

    id = models.CharField(primary_key=True, max_length=64)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="packets",
        help_text="Who pushed it (the creator, for team packets).",
    )
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, null=True, blank=True, related_name="packets")
    ltm_version = models.CharField(max_length=8)
    created_at = models.DateTimeField(help_text="The packet's own created_at.")
    goal = models.TextField()
    next_step = models.TextField()
    parent_id = models.CharField(max_length=64, blank=True)
    project = models.CharField(max_length=128, blank=True)
    tags = models.CharField(max_length=600, blank=True, help_text="Space-separated, padded: ' a b '.")
    body = models.TextField(help_text="Canonical JSON of the packet.")
    pushed_at = models.DateTimeField(auto_now=True)
    # Publishing: the random slug of the public page, set only while published. A new
    # slug is minted on each publish after an unpublish, so a leaked old link stays dead.
    public_slug = models.CharField(max_length=64, unique=True, null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)

    objects = PacketQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # Personal list: the newest of one owner's personal packets.
            models.Index(
                fields=["owner", "-created_at", "-id"], condition=Q(team__isnull=True), name="packet_personal_newest"
            ),
            models.Index(fields=["team", "-created_at", "-id"], name="packet_team_newest"),
            # The chain on a packet's page: its children, found by their parent_id.
            models.Index(fields=["parent_id"], name="packet_parent"),
        ]

    def __str__(self) -> str:
        return f"{self.id}: {self.goal[:60]}"

    def movable_by(self, actor) -> bool:
        """Moving between scopes is for the creator only: a team's managers may delete its packets,
        but not take one out of the team."""
        return self.owner_id == actor.pk

    @property
    def tag_list(self) -> list[str]:
        return self.tags.split()
