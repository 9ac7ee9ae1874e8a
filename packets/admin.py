from django.contrib import admin

from core.admin import NoAddMixin
from packets.models import SCAN_FIELDS, Packet, ScanRun, Share


@admin.register(Packet)
class PacketAdmin(NoAddMixin, admin.ModelAdmin):
    # Packets arrive validated through the API (`ltm push`); here they can be listed, changed, deleted.
    list_display = ("id", "short_goal", "owner", "team", "project", "created_at", "published_at", "quarantined")
    list_filter = ("ltm_version", "quarantined", ("team", admin.RelatedOnlyFieldListFilter))
    search_fields = ("id", "goal", "next_step", "project", "tags", "owner__username", "team__name")
    raw_id_fields = ("owner", "team")
    date_hierarchy = "created_at"
    # The body is the packet as pushed; editing it here would bypass validation.
    readonly_fields = (
        "id",
        "ltm_version",
        "created_at",
        "goal",
        "next_step",
        "parent_id",
        "project",
        "tags",
        "body",
        "pushed_at",
        "public_slug",
        "published_at",
        # The secret scan's verdict changes through a re-push, a clearing or a rescan, never here.
        *SCAN_FIELDS,
    )

    @admin.display(description="goal")
    def short_goal(self, packet):
        return packet.goal[:80]


@admin.register(Share)
class ShareAdmin(NoAddMixin, admin.ModelAdmin):
    list_display = ("id", "packet", "sender", "recipient", "created_at", "seen_at")
    raw_id_fields = ("packet", "sender", "recipient")
    readonly_fields = ("id", "packet", "sender", "recipient", "note", "created_at", "seen_at")


@admin.register(ScanRun)
class ScanRunAdmin(NoAddMixin, admin.ModelAdmin):
    # Runs are asked for with manage.py ltm_scan; here their progress is read.
    list_display = ("id", "team", "requested_at", "started_at", "finished_at", "scanned", "total", "flagged")
    readonly_fields = (
        "id",
        "team",
        "requested_at",
        "started_at",
        "finished_at",
        "total",
        "scanned",
        "flagged",
        "unflagged",
    )
