from django.conf import settings
from django.db import models
from django.db.models import Q


class Packet(models.Model):
    """A Core Memory Packet as pushed, plus the metadata the hub needs to list and scope it.

    The packet's own `id` is the primary key; `body` is its canonical JSON, served as is.
    Scope is metadata: personal when `team` is empty, else the team's.
    """

    id = models.CharField(primary_key=True, max_length=64)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="packets",
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

    @property
    def tag_list(self) -> list[str]:
        return self.tags.split()
