"""The packet: a Core Memory Packet as pushed, with the metadata the hub lists and scopes it by,
and its queryset, which reads the rights (packets.models.rights) and HELD (packets.models.held)."""

from django.conf import settings
from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, Q

from packets.models.held import HeldOut, held_q
from packets.models.rights import CHANGE, READ, shareable_q


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
        packets._iterable_class = HeldOut
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
    # The hub's secret scan (packets.scan.findings): what it found when the packet was last pushed or
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
    # Recall by meaning (packets.search.vectors): the packet's vector, 256 float16, and when it was
    # written. None while the packet waits to be embedded: a push (and a re-push) stores none.
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    embedded_at = models.DateTimeField(null=True, blank=True)

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
            # Recall by meaning: the packets waiting for their vector, and the vectors written since
            # a process last read them (packets.search.vectors).
            models.Index(fields=["pushed_at"], condition=Q(embedding__isnull=True), name="packet_vector_waiting"),
            models.Index(fields=["embedded_at"], condition=Q(embedded_at__isnull=False), name="packet_vector_written"),
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
