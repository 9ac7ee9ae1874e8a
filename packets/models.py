"""The packet, and who may read, change and share one: READ, CHANGE and SHARE below are the one
statement of each rule, read by the queryset (Packet.objects.visible_to / changeable_by /
shareable_by) and, for reading and changing, by the SQL fragments of the hot paths that run plain
SQL. A Share hands one packet to one person, who may then read it (and nothing more).

HELD narrows READ while the secret scan quarantines a packet: only those who may clear its
findings (CLEAR) read its content then; every other reader sees that it is held, not what it says."""

from typing import NamedTuple

from django.conf import settings
from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, Q
from django.utils import timezone

from core.ids import new_id
from teams.models import Membership, Team

ALL_ROLES = tuple(role for role, _ in Membership.ROLES)


class Right(NamedTuple):
    """Who holds a right on a packet: its creator (on their personal packets only, or on the team
    packets they pushed too, while they are in the team), the members of the packet's team whose
    role is one of `roles`, and (when `shared`) the people it was shared with. Leaving a team, or
    being removed from it, ends every right in it.

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
        teams = Membership.objects.filter(user_id=person.pk)
        if roles != ALL_ROLES:
            teams = teams.filter(role__in=roles)
        return teams.values("team_id")

    def sql(self, alias: str, person) -> tuple[str, list]:
        """(condition, params) on `alias`, a row of the packets table."""
        teams, teams_params = self.teams_sql(person)
        granted = f"{_personal(alias)} OR {alias}.team_id IN ({teams})"
        params = [person.pk, *teams_params]
        if self.creator_on_team_packets:
            member_of, member_params = teams_sql(ALL_ROLES, person)
            granted += f" OR ({alias}.owner_id = %s AND {alias}.team_id IN ({member_of}))"
            params += [person.pk, *member_params]
        if self.shared:
            granted += f" OR {alias}.id IN (SELECT packet_id FROM {Share._meta.db_table} WHERE recipient_id = %s)"
            params.append(person.pk)
        return f"({granted})", params

    def teams_sql(self, person) -> tuple[str, list]:
        """(SELECT of the teams where `person` holds the right by their role, params)."""
        return teams_sql(self.roles, person)


def teams_sql(roles: tuple[str, ...], person) -> tuple[str, list]:
    """(SELECT of the teams where `person` has one of `roles`, params): the roles are parameters
    too, never text in the SQL."""
    sql = f"SELECT team_id FROM {Membership._meta.db_table} WHERE user_id = %s"
    if roles == ALL_ROLES:
        return sql, [person.pk]
    return f"{sql} AND role IN ({', '.join(['%s'] * len(roles))})", [person.pk, *roles]


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
# What a reader without CLEAR is shown of a held packet instead of its goal (and nothing else of
# its content: no snippet, no body).
HELD_GOAL = "held back by the hub's secret scan"


def _personal(alias: str) -> str:
    return f"({alias}.team_id IS NULL AND {alias}.owner_id = %s)"


# The SQL fragments the plain-SQL paths (pull, list, search, thread, export, delete, publish) put
# in their WHERE, each a (condition, params) pair on `alias`, a row of the packets table.


def readable_sql(alias: str, viewer) -> tuple[str, list]:
    """The packets `viewer` may read (READ), held ones included: they may know those exist."""
    return READ.sql(alias, viewer)


def held_sql(alias: str, viewer) -> tuple[str, list]:
    """HELD: true on a packet the secret scan quarantines that `viewer` may not clear (CLEAR); of
    such a packet they may know that it exists and is held, never its content. A packet whose
    findings were cleared, or that a clean push replaced, is not quarantined."""
    may_clear, params = CLEAR.sql(alias, viewer)
    # COALESCE: `team_id IN (...)` is NULL on a personal packet, and NOT NULL would not be true.
    return f"({alias}.quarantined AND NOT COALESCE({may_clear}, FALSE))", params


def content_readable_sql(alias: str, viewer) -> tuple[str, list]:
    """The packets whose content `viewer` may read: READ, less HELD."""
    readable, params = READ.sql(alias, viewer)
    held, held_params = held_sql(alias, viewer)
    return f"({readable} AND NOT {held})", [*params, *held_params]


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
    A share lasts while its sender holds this right (packets.shares.shares_prune)."""
    teams = Membership.objects.filter(user_id=person.pk, team__share_outside=True)
    return Q(team__isnull=True, owner_id=person.pk) | Q(team_id__in=teams.values("team_id"))


def held_q(viewer) -> Q:
    """HELD as a queryset filter (see held_sql)."""
    return Q(quarantined=True) & ~CLEAR.q(viewer)


def held_out(packet):
    """A packet read with its `held` (HELD for the reader) as a reader without CLEAR may see it:
    when held, its goal is HELD_GOAL and its other content empty, so that no page, list or answer
    shows any of it. For reading only: a packet held out is never saved."""
    packet.held = bool(packet.held)
    if packet.held:
        packet.goal, packet.next_step, packet.project, packet.tags, packet.body = HELD_GOAL, "", "", "", ""
    return packet


class _HeldOut(models.query.ModelIterable):
    """The packets of Packet.objects.with_held, each held out (see held_out)."""

    def __iter__(self):
        return (held_out(packet) for packet in super().__iter__())


class PacketQuerySet(models.QuerySet):
    def visible_to(self, viewer):
        """The packets `viewer` may read (READ), held ones included (see with_held)."""
        return self.filter(READ.q(viewer))

    def content_visible_to(self, viewer):
        """The packets whose content `viewer` may read: READ, less HELD."""
        return self.filter(READ.q(viewer)).exclude(held_q(viewer))

    def with_held(self, viewer):
        """Each packet with `held`, whether the secret scan holds it back from `viewer` (HELD), and
        held out for them (held_out: a held one's goal is HELD_GOAL)."""
        packets = self.annotate(held=ExpressionWrapper(held_q(viewer), output_field=BooleanField()))
        packets._iterable_class = _HeldOut
        return packets

    def changeable_by(self, actor):
        """The packets `actor` may delete, publish, unpublish and clear the findings of (CHANGE)."""
        return self.filter(CHANGE.q(actor))

    def movable_by(self, actor):
        """The packets `actor` may move between scopes: those they created, of what they may
        change. A team's managers may delete its packets, but not take one out of the team."""
        return self.filter(CHANGE.q(actor), owner_id=actor.pk)

    def shareable_by(self, actor):
        """The packets `actor` may share with a person by name (SHARE)."""
        return self.filter(shareable_q(actor))


# What the secret scan says of a packet: a push, a move and a rescan set them together
# (Packet.record_scan).
SCAN_FIELDS = (
    "findings",
    "scanned_at",
    "quarantined",
    "findings_cleared_by",
    "findings_cleared_at",
    "findings_clear_reason",
)
# A packet's public page; quarantine takes it down (Packet.record_scan).
PAGE_FIELDS = ("public_slug", "published_at")


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
    # The hub's secret scan (packets.findings): what it found when the packet was last pushed or
    # rescanned, as [{"path", "kind"}] (never the secret itself). A packet with findings is
    # quarantined (not published, not shared, its content read only by those who may clear it:
    # HELD) until a clean re-push or a cleared finding; a re-push scans again and forgets the last
    # clearing.
    findings = models.JSONField(default=list, blank=True)
    scanned_at = models.DateTimeField(null=True, blank=True)
    quarantined = models.BooleanField(default=False)
    # No index: every push would write it, and only deleting an account looks packets up by it.
    findings_cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    findings_cleared_at = models.DateTimeField(null=True, blank=True)
    findings_clear_reason = models.CharField(max_length=500, blank=True)

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
            # The review queue: the few packets held back by the secret scan.
            models.Index(fields=["team", "owner"], condition=Q(quarantined=True), name="packet_quarantined"),
        ]

    def __str__(self) -> str:
        return f"{self.id}: {self.goal[:60]}"

    def record_scan(self, findings: list[dict], at) -> list[str]:
        """A scan's findings: quarantined when there are any, an earlier clearing forgotten, and a
        public page taken down (its link stays dead: publishing again makes a new one). The
        fields it set, to save. A stored packet (a move, a rescan) whose findings are those it has
        already is left as it is, a clearing of them included: no field to save. A push's packet is
        new (not yet saved) and takes every scan."""
        if not self._state.adding and findings == self.findings:
            return []
        self.findings, self.scanned_at, self.quarantined = findings, at, bool(findings)
        self.findings_cleared_by, self.findings_cleared_at, self.findings_clear_reason = None, None, ""
        if not findings:
            return list(SCAN_FIELDS)
        self.public_slug = self.published_at = None
        return [*SCAN_FIELDS, *PAGE_FIELDS]

    @property
    def tag_list(self) -> list[str]:
        return self.tags.split()


SHARE_NOTE_MAX_LENGTH = 500


class Share(models.Model):
    """One packet handed to one person by name: the recipient may read it wherever reading
    happens (READ), never change it. One share per packet, sender and recipient; sharing again
    updates the note. It ends when withdrawn or dismissed, when the packet goes, or when its
    sender no longer may share the packet (SHARE)."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    # On PostgreSQL the database deletes a packet's shares with it (migration 0010): the packet's
    # delete is one plain statement, and a share made meanwhile must not block it.
    packet = models.ForeignKey(Packet, on_delete=models.CASCADE, related_name="shares")
    sender = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shares_sent")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="shares_received")
    note = models.CharField(max_length=SHARE_NOTE_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    seen_at = models.DateTimeField(null=True, blank=True, help_text="When the recipient first read the packet.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["packet", "sender", "recipient"], name="one_share_per_sender_and_recipient")
        ]
        indexes = [
            # The inbox (and READ's test of a packet): what was shared with one person, newest first.
            models.Index(fields=["recipient", "-created_at"], name="share_inbox_newest"),
            models.Index(fields=["sender", "-created_at"], name="share_sent_newest"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"share of {self.packet_id} with {self.recipient_id}"


class ScanRun(models.Model):
    """One rescan of stored packets with today's secret-scan patterns (manage.py ltm_scan), run
    by a Celery task that records its progress here, so whoever started it can follow it."""

    id = models.CharField(primary_key=True, max_length=26, default=new_id, editable=False)
    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    scanned = models.PositiveIntegerField(default=0)
    flagged = models.PositiveIntegerField(default=0)
    unflagged = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self) -> str:
        return f"scan {self.id}: {self.scanned}/{self.total}"
